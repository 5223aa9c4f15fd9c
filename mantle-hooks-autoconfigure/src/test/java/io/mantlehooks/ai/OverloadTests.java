package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.Burners;
import io.mantlehooks.Callers;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.system.JavaVersion;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Overload slows turns down and never fails or skips a hook. Each case starts a fresh
 * application and sends its turns at once (the first seconds after start, before the JIT
 * has compiled anything), with two threads burning CPU for the whole run, on platform
 * threads (a bounded pool with a queue) and, on Java 21 and later, on virtual threads:
 * every reply is the hooked reply, every hook invocation proceeded and every circuit
 * breaker stayed closed. Nothing is timed: the outcomes are asserted.
 */
class OverloadTests {

	private static final String HOOKED_REPLY = "Hello [name], your number is [n]!";

	private Burners burners;

	@BeforeEach
	void burnCpu() {
		this.burners = new Burners(2);
	}

	@AfterEach
	void stopBurning() throws InterruptedException {
		this.burners.stop();
	}

	/**
	 * A thousand turns at once through four trivial modify hooks at their default
	 * timeouts.
	 */
	@ParameterizedTest(name = "{0}, {1} threads")
	@CsvSource({ "call, platform", "stream, platform", "call, virtual", "stream, virtual" })
	void aBurstOfTurnsAtDefaultTimeoutsGetsEveryHookedReply(String driver, String threads) {
		int turns = 1000;
		runner(threads).withBean("trivialHooks", TrivialHooks.class).run((context) -> {
			List<String> replies = burst(context, driver, turns);
			assertThat(replies).hasSize(turns).allSatisfy((reply) -> assertThat(reply).isEqualTo(HOOKED_REPLY));
			assertEveryHookProceeded(context, turns);
		});
	}

	/**
	 * Two hook threads for hundreds of turns whose hooks take 10 ms each: hooks wait in
	 * the queue far longer than their 500 ms timeout, and none times out, as that wait is
	 * the machine's, not the hook's.
	 */
	@ParameterizedTest(name = "{0}")
	@CsvSource({ "call", "stream" })
	void aQueueLongerThanEveryTimeoutTimesOutNoHook(String driver) {
		int turns = 200;
		QueuedTime queued = new QueuedTime();
		runner("platform").withBean("slowHooks", SlowHooks.class)
			.withPropertyValues("mantle.hooks.executor.pool-size=2")
			.withBean(ObservationRegistry.class, () -> {
				ObservationRegistry registry = ObservationRegistry.create();
				registry.observationConfig().observationHandler(queued);
				return registry;
			})
			.run((context) -> {
				List<String> replies = burst(context, driver, turns);
				assertThat(replies).hasSize(turns).allSatisfy((reply) -> assertThat(reply).isEqualTo(HOOKED_REPLY));
				assertEveryHookProceeded(context, turns);
				// the queue really was longer than the hooks' 500 ms timeout
				assertThat(queued.longest()).isGreaterThan(Duration.ofMillis(500));
			});
	}

	private static ApplicationContextRunner runner(String threads) {
		boolean virtual = threads.equals("virtual");
		if (virtual) {
			assumeTrue(JavaVersion.getJavaVersion().isEqualOrNewerThan(JavaVersion.TWENTY_ONE),
					"virtual threads need Java 21");
		}
		return new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withBean(GreetingModel.class)
			.withPropertyValues("spring.threads.virtual.enabled=" + virtual);
	}

	/** Runs the turns at once, each on its own caller thread, and returns the replies. */
	private static List<String> burst(AssertableApplicationContext context, String driver, int turns)
			throws InterruptedException {
		ChatClient chatClient = ChatTestSupport.chatClient(context);
		return Callers.burst(turns, (index) -> {
			ChatClient.ChatClientRequestSpec request = chatClient.prompt().user("I am alice");
			if (driver.equals("call")) {
				return request.call().content();
			}
			List<String> chunks = request.stream().content().collectList().block(Duration.ofMinutes(5));
			return (chunks != null) ? String.join("", chunks) : null;
		});
	}

	private static void assertEveryHookProceeded(AssertableApplicationContext context, int turns) {
		HookRegistry registry = context.getBean(HookRegistry.class);
		for (HookPoint point : List.of(HookPoint.INCOMING_MESSAGE, HookPoint.MODEL_REQUEST, HookPoint.MODEL_RESPONSE,
				HookPoint.OUTGOING_TEXT)) {
			HookMethod hook = registry.everyAgent().modifier(point);
			assertThat(hook).as(point.configName()).isNotNull();
			Map<HookOutcome, Long> outcomes = hook.outcomeCounts();
			assertThat(outcomes).as(hook.name()).containsEntry(HookOutcome.PROCEEDED, (long) turns);
			assertThat(outcomes.values().stream().mapToLong(Long::longValue).sum()).as(hook.name()).isEqualTo(turns);
			CircuitBreaker breaker = hook.circuitBreaker();
			assertThat(breaker).isNotNull();
			assertThat(breaker.getState()).as(hook.name()).isEqualTo(CircuitBreaker.State.CLOSED);
			assertThat(breaker.getMetrics().getNumberOfFailedCalls()).as(hook.name()).isZero();
		}
	}

	/**
	 * Greets the user by what the model request says and tells a number; the stream sends
	 * it a word at a time.
	 */
	static class GreetingModel implements ChatModel {

		@Override
		public ChatResponse call(Prompt prompt) {
			return reply(answer(prompt));
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.defer(() -> Flux.fromArray(answer(prompt).split("(?<= )")).map(GreetingModel::reply));
		}

		private static String answer(Prompt prompt) {
			String user = prompt.getUserMessage().getText();
			return "Hello " + user.substring(user.lastIndexOf(' ') + 1) + ", your number is 42.";
		}

		private static ChatResponse reply(String text) {
			return new ChatResponse(List.of(new Generation(new AssistantMessage(text))));
		}

	}

	/**
	 * Four modify hooks that return at once: what redaction and house style cost.
	 */
	static class TrivialHooks {

		@ModifyIncomingMessage
		IncomingMessagePayload incoming(IncomingMessagePayload message) {
			return message.withText(message.text().replace("alice", "[name]"));
		}

		@ModifyModelRequest
		ModelRequestPayload request(ModelRequestPayload request) {
			return request.withMessages(request.messages()
				.stream()
				.map((message) -> (message instanceof UserMessage user)
						? new UserMessage(user.getText().replace("alice", "[name]")) : message)
				.toList());
		}

		@ModifyModelResponse
		ModelResponsePayload response(ModelResponsePayload response) {
			return (response.text() != null) ? response.withText(response.text().replace("42", "[n]")) : response;
		}

		@ModifyOutgoingText
		OutgoingTextPayload outgoing(OutgoingTextPayload outgoing) {
			return outgoing.withText(outgoing.text().replace(".", "!"));
		}

	}

	/**
	 * The same four hooks, each 10 ms of blocking work.
	 */
	static class SlowHooks extends TrivialHooks {

		@Override
		@ModifyIncomingMessage
		IncomingMessagePayload incoming(IncomingMessagePayload message) {
			Stalls.sleep(10);
			return super.incoming(message);
		}

		@Override
		@ModifyModelRequest
		ModelRequestPayload request(ModelRequestPayload request) {
			Stalls.sleep(10);
			return super.request(request);
		}

		@Override
		@ModifyModelResponse
		ModelResponsePayload response(ModelResponsePayload response) {
			Stalls.sleep(10);
			return super.response(response);
		}

		@Override
		@ModifyOutgoingText
		OutgoingTextPayload outgoing(OutgoingTextPayload outgoing) {
			Stalls.sleep(10);
			return super.outgoing(outgoing);
		}

	}

	/** The longest time a hook invocation waited for a thread. */
	static final class QueuedTime implements ObservationHandler<HookObservationContext> {

		private final AtomicLong longest = new AtomicLong();

		@Override
		public void onStop(HookObservationContext context) {
			this.longest.accumulateAndGet(context.getQueued().toNanos(), Math::max);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof HookObservationContext;
		}

		Duration longest() {
			return Duration.ofNanos(this.longest.get());
		}

	}

}
