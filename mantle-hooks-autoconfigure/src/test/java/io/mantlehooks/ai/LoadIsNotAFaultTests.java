package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.Callers;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Load is not a fault: a burst of concurrent turns against healthy 20 ms redaction hooks
 * at model-request (fail closed), tool-result, model-response and outgoing-text (fail
 * open), far beyond {@code max-concurrent} in flight at once. Every reply is the model's,
 * redacted by every hook; no hook is skipped, no fail policy applies, no observer is
 * dropped and every circuit breaker stays closed. Callers are virtual threads on Java 21
 * and later, platform threads on 17.
 */
class LoadIsNotAFaultTests {

	private static final int TURNS = 1000;

	/**
	 * Invocations of each modify hook that wait for each other (max-concurrent is 64).
	 */
	private static final int WAVE = 100;

	/** Model calls that wait for each other, so that their replies arrive together. */
	private static final int TOGETHER = 200;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(ChatTestSupport.mantleConfigurations())
		.withBean(BurstModel.class)
		.withBean("burstHooks", BurstHooks.class);

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aBurstOfTurnsNeverSkipsAHealthyHook(String driver) {
		this.contextRunner.run((context) -> {
			BurstModel model = context.getBean(BurstModel.class);
			BurstHooks hooks = context.getBean(BurstHooks.class);
			hooks.streamed = driver.equals("stream");
			ChatClient chatClient = ChatTestSupport.chatClient(context);
			List<ChatClientResponse> replies = Callers.burst(TURNS, (i) -> {
				ChatClient.ChatClientRequestSpec request = chatClient.prompt()
					.user("alice asks about order " + i)
					.tools(new BurstTools());
				if (driver.equals("call")) {
					return request.call().chatClientResponse();
				}
				return lastOf(request.stream().chatClientResponse());
			});
			for (int i = 0; i < TURNS; i++) {
				ChatClientResponse response = replies.get(i);
				assertThat(response.context()).doesNotContainKey(MantleHooks.OUTCOME);
				assertThat(text(response)).as("reply of turn " + i)
					.isEqualTo("Order A-" + i + " paid with card [card]. The secret is [hidden]. Total 30 €.");
			}
			// the fail-closed model-request hook redacted every prompt the model saw
			assertThat(model.userTexts()).hasSize(2 * TURNS).noneMatch((text) -> text.contains("alice"));
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertProceededOnly(registry.everyAgent().modifier(HookPoint.MODEL_REQUEST), 2 * TURNS);
			assertProceededOnly(registry.everyAgent().modifier(HookPoint.MODEL_RESPONSE), 2 * TURNS);
			assertProceededOnly(registry.everyAgent().modifier(HookPoint.TOOL_RESULT), TURNS);
			assertProceededOnly(registry.everyAgent().modifier(HookPoint.OUTGOING_TEXT), TURNS);
			await().atMost(Duration.ofSeconds(60)).until(() -> hooks.observed.get() == 2 * TURNS);
			HookMethod observer = registry.everyAgent().observers(HookPoint.MODEL_RESPONSE).get(0);
			assertThat(observer.rejectedInvocations()).isZero();
			await().atMost(Duration.ofSeconds(60))
				.until(() -> observer.outcomeCounts().get(HookOutcome.PROCEEDED) == 2 * TURNS);
			// the burst really was one: more invocations of each hook at once than
			// max-concurrent (64); a stream's tools run on Reactor's bounded-elastic
			// scheduler, as Spring AI runs them, so its tool results come as fast as it
			// runs tools
			assertThat(hooks.mostAtOnce).hasSize(4)
				.allSatisfy((hook, most) -> assertThat(most.get()).as(hook).isGreaterThanOrEqualTo(hooks.wave(hook)));
		});
	}

	private static void assertProceededOnly(@Nullable HookMethod hook, int invocations) {
		assertThat(hook).isNotNull();
		Map<HookOutcome, Long> outcomes = hook.outcomeCounts();
		assertThat(outcomes).as(hook.name()).containsEntry(HookOutcome.PROCEEDED, (long) invocations);
		assertThat(outcomes.values().stream().mapToLong(Long::longValue).sum()).as(hook.name()).isEqualTo(invocations);
		assertThat(hook.rejectedInvocations()).isZero();
		CircuitBreaker breaker = hook.circuitBreaker();
		assertThat(breaker).isNotNull();
		assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isZero();
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	/**
	 * A streamed turn's chunks joined into one response whose context is the last
	 * chunk's, as a client shows them.
	 */
	private static ChatClientResponse lastOf(Flux<ChatClientResponse> chunks) {
		List<ChatClientResponse> all = chunks.collectList().block(Duration.ofMinutes(5));
		assertThat(all).isNotEmpty();
		StringBuilder text = new StringBuilder();
		for (ChatClientResponse chunk : all) {
			if (chunk.chatResponse() != null && chunk.chatResponse().getResult() != null
					&& chunk.chatResponse().getResult().getOutput().getText() != null) {
				text.append(chunk.chatResponse().getResult().getOutput().getText());
			}
		}
		ChatClientResponse last = all.get(all.size() - 1);
		ChatResponse joined = new ChatResponse(List.of(new Generation(new AssistantMessage(text.toString()))));
		return ChatClientResponse.builder().chatResponse(joined).context(last.context()).build();
	}

	/**
	 * Calls a tool first; once it has the tool's result, answers with it, a secret and an
	 * amount. The first {@link #TOGETHER} calls wait for each other (at most ten
	 * seconds), so their responses arrive together.
	 */
	static class BurstModel implements ChatModel {

		private final Queue<String> userTexts = new ConcurrentLinkedQueue<>();

		private final AtomicInteger arrived = new AtomicInteger();

		private final CompletableFuture<Void> together = new CompletableFuture<>();

		/**
		 * Tool-calling options, so that a {@code ChatClient} offers tools to this model.
		 */
		/**
		 * The user's text of every prompt, in arrival order (a method: the bean may be a
		 * proxy of this class, whose own fields are empty).
		 */
		Queue<String> userTexts() {
			return this.userTexts;
		}

		@Override
		public ChatOptions getOptions() {
			return ToolCallingChatOptions.builder().build();
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			ChatResponse response = answer(prompt);
			try {
				this.together.get(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException ex) {
				// not all arrived: answer anyway
			}
			return response;
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.defer(() -> {
				ChatResponse response = answer(prompt);
				String text = response.getResult().getOutput().getText();
				Flux<ChatResponse> chunks = (text != null)
						? Flux.fromArray(text.split("(?<= )")).map((word) -> reply(word, List.of(), null))
						: Flux.just(response);
				return Mono.fromFuture(this.together)
					.timeout(Duration.ofSeconds(10))
					.onErrorResume((ex) -> Mono.empty())
					.thenMany(chunks);
			});
		}

		private ChatResponse answer(Prompt prompt) {
			List<Message> messages = prompt.getInstructions();
			this.userTexts.add(prompt.getUserMessage().getText());
			if (this.arrived.incrementAndGet() >= TOGETHER) {
				this.together.complete(null);
			}
			if (messages.get(messages.size() - 1) instanceof ToolResponseMessage tool) {
				String result = tool.getResponses().get(0).responseData().replace("\"", "");
				return reply("Order " + result + ". The secret is 42. Total 30 EUR.", List.of(), "STOP");
			}
			String order = prompt.getUserMessage().getText().replaceAll("\\D", "");
			return reply(null, List
				.of(new AssistantMessage.ToolCall("call-" + order, "function", "lookup", "{\"id\":\"" + order + "\"}")),
					"TOOL_CALLS");
		}

		private static ChatResponse reply(@Nullable String text, List<AssistantMessage.ToolCall> calls,
				@Nullable String finishReason) {
			AssistantMessage message = AssistantMessage.builder().content(text).toolCalls(calls).build();
			ChatGenerationMetadata metadata = (finishReason != null)
					? ChatGenerationMetadata.builder().finishReason(finishReason).build() : ChatGenerationMetadata.NULL;
			return new ChatResponse(List.of(new Generation(message, metadata)));
		}

	}

	static class BurstTools {

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			return "A-" + id + " paid with card 4111";
		}

	}

	/**
	 * Four healthy redaction hooks, 20 ms each, with timeouts no loaded machine reaches,
	 * and a 20 ms observer.
	 */
	static class BurstHooks {

		/** Tool results at once in a stream: as many as Reactor runs blocking tasks. */
		static final int STREAMED_TOOL_RESULTS = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE;

		final AtomicInteger observed = new AtomicInteger();

		/** Whether the turns are streamed. */
		volatile boolean streamed;

		/** The most invocations of each modify hook that ran at once. */
		final Map<String, AtomicInteger> mostAtOnce = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> waves = new ConcurrentHashMap<>();

		@ModifyModelRequest(timeoutMs = 120_000)
		ModelRequestPayload hideName(ModelRequestPayload request) {
			work("hideName");
			return request.withMessages(request.messages()
				.stream()
				.map((message) -> (message instanceof UserMessage user)
						? (Message) new UserMessage(user.getText().replace("alice", "[name]")) : message)
				.toList());
		}

		@ModifyToolResult(timeoutMs = 120_000)
		ToolResultPayload hideCard(ToolResultPayload result) {
			work("hideCard");
			return result.withValue(result.value().replace("card 4111", "card [card]"));
		}

		@ModifyModelResponse(timeoutMs = 120_000)
		ModelResponsePayload hideSecret(ModelResponsePayload response) {
			work("hideSecret");
			return (response.text() != null) ? response.withText(response.text().replace("is 42", "is [hidden]"))
					: response;
		}

		@ModifyOutgoingText(timeoutMs = 120_000)
		OutgoingTextPayload houseStyle(OutgoingTextPayload outgoing) {
			work("houseStyle");
			return outgoing.withText(outgoing.text().replace("EUR", "€"));
		}

		@OnModelResponse(timeoutMs = 120_000)
		void audit(ModelResponsePayload response) {
			Stalls.sleep(20);
			this.observed.incrementAndGet();
		}

		/** How many invocations of a hook wait for each other. */
		int wave(String hook) {
			return (this.streamed && hook.equals("hideCard")) ? Math.min(WAVE, STREAMED_TOOL_RESULTS) : WAVE;
		}

		private void work(String hook) {
			AtomicInteger running = this.running.computeIfAbsent(hook, (key) -> new AtomicInteger());
			int now = running.incrementAndGet();
			this.mostAtOnce.computeIfAbsent(hook, (key) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
			try {
				// the first invocations wait for each other, however slowly the machine
				// starts the callers: a burst beyond max-concurrent at every hook
				CountDownLatch wave = this.waves.computeIfAbsent(hook, (key) -> new CountDownLatch(wave(key)));
				wave.countDown();
				wave.await(20, TimeUnit.SECONDS);
				Stalls.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				running.decrementAndGet();
			}
		}

	}

}
