package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.mantlehooks.Channel;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.UnhookedModelCallException;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A model call made from inside a hook (an LLM judge at model-response) belongs to the
 * hook's turn: it carries the turn's identity, runs the model hooks but not the hook it
 * was made from, starts no turn of its own, and is never reported as unhooked, in
 * {@code .call()} and {@code .stream()} turns alike.
 */
@ExtendWith(OutputCaptureExtension.class)
class HookModelCallTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		// as in every application with the starter: unhooked calls are seen through
		// model observations
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
		.withPropertyValues("mantle.hooks.timeouts.modify=30s")
		.withBean("watch", Watch.class);

	private final ApplicationContextRunner withJudge = this.contextRunner.withBean("judge", Judge.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aJudgeAtModelResponseAsksTheModelWithinTheTurn(String driver) {
		// the assistant's draft, then the judge's verdict
		this.openAi.reply(Reply.text("Your refund is on its way."), Reply.text("SAFE"));
		this.withJudge.run((context) -> {
			ChatClientResponse response = turn(context, driver, "Where is my refund?");
			assertThat(text(response)).isEqualTo("Your refund is on its way. [judged SAFE]");
			Judge judge = context.getBean(Judge.class);
			// the judge ran once: not again for its own model call
			assertThat(judge.judged).containsExactly("Your refund is on its way.");
			Watch watch = context.getBean(Watch.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> watch.requests.size() == 2);
			// both model requests, the turn's and the judge's, carry the turn's identity
			assertThat(watch.requests).extracting(HookPayload::senderId).containsExactly("user-7", "user-7");
			assertThat(watch.requests).extracting(HookPayload::channel)
				.containsOnly(new Channel("web", Map.of("tier", "gold")));
			assertThat(watch.requests.get(1).messages().get(0).getText()).contains("Judge this reply");
			assertThat(this.openAi.requests()).hasSize(2);
			// one turn: the judge's call runs no incoming-message or turn hooks
			await().atMost(Duration.ofSeconds(30)).until(() -> watch.started.size() == 1);
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(30))
				.until(() -> watch.started.size() == 1 && watch.incoming.size() == 1);
			assertThat(watch.started.get(0).turnId()).isEqualTo(response.context().get(MantleHooks.TURN_ID));
		});
	}

	/**
	 * The judge's own model call has a modify hook the judge's thread waits for: on a
	 * pool of one thread, that thread is replaced while it waits, so the hook is not
	 * queued behind the thread waiting for it.
	 */
	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aJudgeWaitsForItsCallsHooksOnAPoolOfOneThread(String driver) {
		this.openAi.reply(Reply.text("Your refund is on its way."), Reply.text("SAFE"));
		this.withJudge.withBean("requestNote", RequestNote.class)
			.withPropertyValues("mantle.hooks.executor.pool-size=1")
			.run((context) -> {
				ChatClientResponse response = turn(context, driver, "Where is my refund?");
				assertThat(text(response)).isEqualTo("Your refund is on its way. [judged SAFE]");
				// the request hook ran for the turn's call and for the judge's
				assertThat(context.getBean(RequestNote.class).notes).hasValue(2);
				assertThat(context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.MODEL_REQUEST))
					.satisfies((hook) -> assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, 2L));
			});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void anAsynchronousJudgeThatStreamsItsVerdictAsksWithinTheTurn(String driver) {
		this.openAi.reply(Reply.text("Your refund is on its way."), Reply.text("SAFE"));
		this.contextRunner.withBean("judge", AsyncJudge.class).run((context) -> {
			ChatClientResponse response = turn(context, driver, "Where is my refund?");
			assertThat(text(response)).isEqualTo("Your refund is on its way. [judged SAFE]");
			assertThat(context.getBean(AsyncJudge.class).judged).containsExactly("Your refund is on its way.");
			Watch watch = context.getBean(Watch.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> watch.requests.size() == 2);
			assertThat(watch.requests).extracting(HookPayload::senderId).containsExactly("user-7", "user-7");
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(30))
				.until(() -> watch.started.size() == 1 && watch.incoming.size() == 1);
		});
	}

	@Test
	void aJudgeWithAHandBuiltClientIsNotRefusedWhenUnhookedCallsFail(CapturedOutput output) {
		this.openAi.reply(Reply.text("Your refund is on its way."), Reply.text("SAFE"));
		this.withJudge.withPropertyValues("mantle.hooks.unhooked-calls=fail").run((context) -> {
			context.getBean(Judge.class).handBuilt = true;
			ChatClientResponse response = turn(context, "call", "Where is my refund?");
			assertThat(text(response)).isEqualTo("Your refund is on its way. [judged SAFE]");
			assertThat(response.context()).doesNotContainKey(MantleHooks.OUTCOME);
		});
		assertThat(output).doesNotContain("was called outside a hooked turn");
	}

	@Test
	void aHandBuiltClientOutsideAnyTurnIsStillRefused() {
		this.contextRunner.withPropertyValues("mantle.hooks.unhooked-calls=fail").run((context) -> {
			ChatClient handBuilt = ChatClient.create(context.getBean(ChatModel.class));
			Assertions.assertThatThrownBy(() -> handBuilt.prompt().user("hi").call().content())
				.isInstanceOf(UnhookedModelCallException.class);
			assertThat(this.openAi.requests()).isEmpty();
		});
	}

	private static ChatClientResponse turn(AssertableApplicationContext context, String driver, String text) {
		ChatClient.ChatClientRequestSpec prompt = ChatTestSupport.chatClient(context)
			.prompt()
			.user(text)
			.advisors(MantleHooks.identity("user-7", new Channel("web", Map.of("tier", "gold"))));
		if (driver.equals("call")) {
			return prompt.call().chatClientResponse();
		}
		List<ChatClientResponse> chunks = prompt.stream()
			.chatClientResponse()
			.collectList()
			.block(Duration.ofSeconds(60));
		assertThat(chunks).isNotEmpty();
		StringBuilder streamed = new StringBuilder();
		chunks.forEach((chunk) -> {
			String part = text(chunk);
			if (part != null) {
				streamed.append(part);
			}
		});
		ChatClientResponse last = chunks.get(chunks.size() - 1);
		return new ChatClientResponse(ChatResponse.builder()
			.generations(List.of(new Generation(new AssistantMessage(streamed.toString()))))
			.build(), last.context());
	}

	private static String text(ChatClientResponse response) {
		return (response.chatResponse() != null && response.chatResponse().getResult() != null)
				? response.chatResponse().getResult().getOutput().getText() : null;
	}

	/** An LLM judge: asks the model whether the draft is safe, with the app's client. */
	static class Judge {

		final List<String> judged = new CopyOnWriteArrayList<>();

		private final ObjectProvider<ChatClient.Builder> builder;

		private final ObjectProvider<ChatModel> model;

		volatile boolean handBuilt;

		Judge(ObjectProvider<ChatClient.Builder> builder, ObjectProvider<ChatModel> model) {
			this.builder = builder;
			this.model = model;
		}

		@ModifyModelResponse
		ModelResponsePayload judge(ModelResponsePayload response) {
			this.judged.add(String.valueOf(response.text()));
			ChatClient client = this.handBuilt ? ChatClient.create(this.model.getObject())
					: this.builder.getObject().build();
			String verdict = client.prompt().user("Judge this reply: " + response.text()).call().content();
			return response.withText(response.text() + " [judged " + verdict + "]");
		}

	}

	/**
	 * The judge as an asynchronous hook: it returns a {@code Mono} that streams the
	 * verdict.
	 */
	static class AsyncJudge {

		final List<String> judged = new CopyOnWriteArrayList<>();

		private final ObjectProvider<ChatClient.Builder> builder;

		AsyncJudge(ObjectProvider<ChatClient.Builder> builder) {
			this.builder = builder;
		}

		@ModifyModelResponse
		Mono<ModelResponsePayload> judge(ModelResponsePayload response) {
			this.judged.add(String.valueOf(response.text()));
			return this.builder.getObject()
				.build()
				.prompt()
				.user("Judge this reply: " + response.text())
				.stream()
				.content()
				.collect(Collectors.joining())
				.map((verdict) -> response.withText(response.text() + " [judged " + verdict + "]"));
		}

	}

	/** What the application's other hooks saw. */
	/** A modify hook on every model request, the judge's included. */
	static class RequestNote {

		final AtomicInteger notes = new AtomicInteger();

		@ModifyModelRequest
		ModelRequestPayload note(ModelRequestPayload request) {
			this.notes.incrementAndGet();
			return request;
		}

	}

	static class Watch {

		final List<ModelRequestPayload> requests = new CopyOnWriteArrayList<>();

		final List<TurnStartedPayload> started = new CopyOnWriteArrayList<>();

		final List<IncomingMessagePayload> incoming = new CopyOnWriteArrayList<>();

		@OnModelRequest
		void request(ModelRequestPayload request) {
			this.requests.add(request);
		}

		@OnTurnStarted
		void started(TurnStartedPayload turn) {
			this.started.add(turn);
		}

		@OnIncomingMessage
		void incoming(IncomingMessagePayload message) {
			this.incoming.add(message);
		}

	}

}
