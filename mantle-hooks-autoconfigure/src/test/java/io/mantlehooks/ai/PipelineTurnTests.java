package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the one pipeline guarantees in whole turns: a hook running when its stream is
 * cancelled finishes and nothing is sent, observers see what proceeds past the modify
 * hook, and an asynchronous hook's late result never reaches the model, memory or user.
 */
class PipelineTurnTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("recordingObservers", RecordingObservers.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void streamCancelledWhileAModifyHookRunsLetsItFinishAndSendsNothing() {
		this.openAi.reply(Reply.text("The secret is 42."));
		this.contextRunner.withBean("slowOutgoingHook", SlowOutgoingHook.class)
			.withPropertyValues("mantle.hooks.timeouts.modify=60s")
			.run((context) -> {
				SlowOutgoingHook hook = context.getBean(SlowOutgoingHook.class);
				ChatMemory memory = MessageWindowChatMemory.builder().build();
				List<String> received = new CopyOnWriteArrayList<>();
				Disposable subscription = ChatTestSupport.chatClient(context)
					.prompt()
					.user("Secret?")
					.advisors(ChatTestSupport.memory(memory, "c1"))
					.stream()
					.content()
					.subscribe(received::add);
				assertThat(hook.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				subscription.dispose();
				hook.release.countDown();
				await().atMost(WAIT).untilTrue(hook.finished);
				assertThat(hook.interrupted).isFalse();
				RecordingObservers observers = ChatTurnTests.observers(context);
				await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
				assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).isEqualTo(TurnStatus.CANCELLED);
				// the hook's result is dropped: nothing reaches the caller or memory
				await().during(Duration.ofMillis(200)).atMost(WAIT).until(received::isEmpty);
				assertThat(ChatTurnTests.texts(memory.get("c1"))).containsExactly("USER: Secret?");
			});
	}

	@Test
	void observersSeeThePromptTheModifyHookLeftAndARejectedMessageAsReceived() {
		this.openAi.reply(Reply.text("Noted."));
		this.contextRunner.withBean("redactingHooks", RedactingHooks.class).run((context) -> {
			RedactingHooks hooks = context.getBean(RedactingHooks.class);
			ChatTestSupport.chatClient(context).prompt().user("my card is 4111").call().content();
			ChatTestSupport.chatClient(context).prompt().user("spam offer").call().content();
			await().atMost(WAIT).until(() -> hooks.requests.size() == 1 && hooks.incoming.size() == 2);
			assertThat(hooks.requests).containsExactly("my card is [card]");
			assertThat(this.openAi.messages(0)).containsExactly("user: my card is [card]");
			// the incoming hook rewrote the first and rejected the second
			assertThat(hooks.incoming).containsExactlyInAnyOrder("my card is 4111", "spam offer");
		});
	}

	@Test
	void lateResultOfAnAsyncHookNeverReachesTheUserOrMemory() {
		this.openAi.reply(Reply.text("The original answer."));
		this.contextRunner.withBean("lateResponseHook", LateResponseHook.class)
			.withPropertyValues("mantle.hooks.timeouts.modify=100ms")
			.run((context) -> {
				ChatMemory memory = MessageWindowChatMemory.builder().build();
				String reply = ChatTestSupport.chatClient(context)
					.prompt()
					.user("Question?")
					.advisors(ChatTestSupport.memory(memory, "c1"))
					.call()
					.content();
				assertThat(reply).isEqualTo("The original answer.");
				LateResponseHook hook = context.getBean(LateResponseHook.class);
				// the turn answered while the hook still spun
				assertThat(hook.returned).isFalse();
				hook.release.countDown();
				await().atMost(WAIT).untilTrue(hook.returned);
				assertThat(ChatTurnTests.texts(memory.get("c1"))).containsExactly("USER: Question?",
						"ASSISTANT: The original answer.");
			});
	}

	static class SlowOutgoingHook {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicBoolean finished = new AtomicBoolean();

		volatile boolean interrupted;

		@ModifyOutgoingText
		OutgoingTextPayload review(OutgoingTextPayload text) {
			this.started.countDown();
			try {
				this.release.await(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				this.interrupted = true;
			}
			this.finished.set(true);
			return text.withText("REVIEWED " + text.text());
		}

	}

	static class RedactingHooks {

		final List<String> requests = new CopyOnWriteArrayList<>();

		final List<String> incoming = new CopyOnWriteArrayList<>();

		@ModifyIncomingMessage
		IncomingMessagePayload filter(IncomingMessagePayload message) {
			if (message.text().startsWith("spam")) {
				throw new HookRejection("spam");
			}
			return message;
		}

		@OnIncomingMessage
		void auditIncoming(IncomingMessagePayload message) {
			this.incoming.add(message.text());
		}

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			List<Message> messages = request.messages()
				.stream()
				.<Message>map((message) -> (message instanceof UserMessage user)
						? user.mutate().text(user.getText().replace("4111", "[card]")).build() : message)
				.toList();
			return request.withMessages(messages);
		}

		@OnModelRequest
		void audit(ModelRequestPayload request) {
			this.requests.add(request.messages().get(request.messages().size() - 1).getText());
		}

	}

	static class LateResponseHook {

		final AtomicBoolean returned = new AtomicBoolean();

		final CountDownLatch release = new CountDownLatch(1);

		@ModifyModelResponse
		CompletionStage<ModelResponsePayload> late(ModelResponsePayload response) {
			// blocking work before the stage: ignores interrupts, until the test
			// releases it
			Stalls.spinUntil(this.release, 60_000);
			this.returned.set(true);
			return CompletableFuture.completedFuture(response.withText("LATE SECRET"));
		}

	}

}
