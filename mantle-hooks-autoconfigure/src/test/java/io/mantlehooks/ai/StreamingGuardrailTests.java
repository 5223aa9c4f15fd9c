package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.mantlehooks.HookRejection;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * An outgoing-text hook that opts into {@code StreamMode.SENTENCES} rewrites a streamed
 * reply sentence by sentence while it streams: each completed sentence goes out as soon
 * as the hook returns it, a rejected sentence retracts the reply and cancels the model,
 * and memory and transcript keep what the user finally saw. The model here is driven by
 * the test, so "before the model finished" is a fact, not a timing.
 */
class StreamingGuardrailTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final GatedStreamingModel model = new GatedStreamingModel();

	private final ApplicationContextRunner contextRunner = runner(this.model);

	private static ApplicationContextRunner runner(GatedStreamingModel model) {
		return new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withBean("chatModel", GatedStreamingModel.class, () -> model)
			.withBean("sentenceHooks", SentenceHooks.class)
			.withBean("recordingObservers", RecordingObservers.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=60s", "mantle.hooks.timeouts.modify=60s",
					"mantle.hooks.transcript.enabled=true",
					"mantle.hooks.responses.utter_no_secrets=I can't share that.");
	}

	@Test
	void eachSentenceGoesOutRewrittenBeforeTheModelFinishes() {
		this.contextRunner.run((context) -> {
			List<String> received = new CopyOnWriteArrayList<>();
			Disposable turn = chatClient(context).prompt().user("Weather?").stream().content().subscribe(received::add);
			this.model.emit("Rome is ");
			this.model.emit("sunny. It is 3.5 ");
			// the first sentence is out while the model is still streaming; "3." does not
			// end one
			await().atMost(WAIT).until(() -> received.contains("ROME IS SUNNY. "));
			assertThat(String.join("", received)).isEqualTo("ROME IS SUNNY. ");
			this.model.emitAll("degrees warmer. Bring", " a hat.");
			await().atMost(WAIT).until(turn::isDisposed);
			assertThat(String.join("", received)).isEqualTo("ROME IS SUNNY. IT IS 3.5 DEGREES WARMER. BRING A HAT.");
			assertThat(hooks(context).segments)
				.extracting(OutgoingTextPayload::text, OutgoingTextPayload::segment, OutgoingTextPayload::finalSegment)
				.containsExactly(tuple("Rome is sunny. ", 0, false), tuple("It is 3.5 degrees warmer. ", 1, false),
						tuple("Bring a hat.", 2, true));
			RecordingObservers observers = ChatTurnTests.observers(context);
			await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
			// observers see the whole reply once, as the user received it
			assertThat(observers.of(OutgoingTextPayload.class)).singleElement()
				.extracting(OutgoingTextPayload::text)
				.isEqualTo("ROME IS SUNNY. IT IS 3.5 DEGREES WARMER. BRING A HAT.");
		});
	}

	@Test
	void aToolCallHookLeavesARequestThatOffersNoToolsStreamingSentenceBySentence() {
		// a provider's options support tool calling (as OpenAI's do) whether or not the
		// request offers tools; only offered tools make a round's text wait for the batch
		GatedStreamingModel toolCapable = GatedStreamingModel.toolCapable();
		runner(toolCapable).withBean("toolCallGuard", ToolCallGuard.class).run((context) -> {
			List<String> received = new CopyOnWriteArrayList<>();
			Disposable turn = chatClient(context).prompt().user("Weather?").stream().content().subscribe(received::add);
			toolCapable.emit("Rome is sunny. It is ");
			await().atMost(WAIT).until(() -> received.contains("ROME IS SUNNY. "));
			toolCapable.emitAll("warm.");
			await().atMost(WAIT).until(turn::isDisposed);
			assertThat(String.join("", received)).isEqualTo("ROME IS SUNNY. IT IS WARM.");
			assertThat(context.getBean(ToolCallGuard.class).calls).isEmpty();
		});
	}

	@Test
	void rejectedThirdSentenceCancelsTheModelAndRetractsTheReply() {
		ChatMemory memory = MessageWindowChatMemory.builder().build();
		this.contextRunner.run((context) -> {
			hooks(context).rewrite = (payload) -> {
				if (payload.text().contains("code")) {
					throw new HookRejection("leaked a code", "utter_no_secrets");
				}
				return payload;
			};
			List<ChatClientResponse> received = new CopyOnWriteArrayList<>();
			Disposable turn = chatClient(context).prompt()
				.user("Any discount?")
				.advisors(ChatTestSupport.memory(memory, "c-1"))
				.stream()
				.chatClientResponse()
				.subscribe(received::add);
			this.model.emit("Sure. ");
			this.model.emit("Let me see. ");
			this.model.emit("The code is X42. ");
			this.model.emit("Enjoy!");
			await().atMost(WAIT).until(turn::isDisposed);
			assertThat(this.model.cancelled).isTrue();
			ChatClientResponse last = received.get(received.size() - 1);
			assertThat(text(last)).isEqualTo("I can't share that.");
			assertThat(last.context()).containsEntry(MantleHooks.RETRACTED, true)
				.containsEntry(MantleHooks.OUTCOME, "rejected");
			assertThat(received.subList(0, received.size() - 1)).extracting(StreamingGuardrailTests::text)
				.containsExactly("Sure. ", "Let me see. ");
			assertThat(received.subList(0, received.size() - 1))
				.noneMatch((chunk) -> chunk.context().containsKey(MantleHooks.RETRACTED));
			// nothing after the rejected sentence reached the hook
			assertThat(hooks(context).segments).extracting(OutgoingTextPayload::text)
				.containsExactly("Sure. ", "Let me see. ", "The code is X42. ", "I can't share that.");
			assertThat(ChatTurnTests.texts(memory.get("c-1"))).containsExactly("USER: Any discount?",
					"ASSISTANT: I can't share that.");
			await().atMost(WAIT).until(() -> context.getBean(TranscriptStore.class).find("c-1").size() == 3);
			assertThat(context.getBean(TranscriptStore.class).find("c-1"))
				.extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::discarded,
						TranscriptEntry::outcome)
				.containsExactly(tuple(TranscriptRole.USER, "Any discount?", false, null),
						tuple(TranscriptRole.ASSISTANT, "Sure. Let me see. ", true, "rejected"),
						tuple(TranscriptRole.ASSISTANT, "I can't share that.", false, "rejected"));
			RecordingObservers observers = ChatTurnTests.observers(context);
			await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
			assertThat(observers.of(OutgoingTextPayload.class)).singleElement()
				.extracting(OutgoingTextPayload::text)
				.isEqualTo("I can't share that.");
			assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).isEqualTo(TurnStatus.COMPLETED);
		});
	}

	@Test
	void aSlowSentenceKeepsTheOrder() {
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.run((context) -> {
			hooks(context).rewrite = (payload) -> {
				if (payload.segment() == 0) {
					block(release);
				}
				return payload.withText("[" + payload.text().trim() + "]");
			};
			List<String> received = new CopyOnWriteArrayList<>();
			Disposable turn = chatClient(context).prompt().user("Count").stream().content().subscribe(received::add);
			this.model.emitAll("One. ", "Two. ", "Three.");
			// the later sentences are cut while the first one's hook still runs
			await().atMost(WAIT).until(() -> hooks(context).segments.size() == 1);
			assertThat(received).isEmpty();
			release.countDown();
			await().atMost(WAIT).until(turn::isDisposed);
			assertThat(received).filteredOn((chunk) -> !chunk.isEmpty())
				.containsExactly("[One.]", "[Two.]", "[Three.]");
		});
	}

	@Test
	void aSentenceWhoseHookTimesOutGoesOutAsItWasAndTheNextIsHookedAgain() {
		CountDownLatch never = new CountDownLatch(1);
		// the same hook hangs on one segment and answers at once on the others: its
		// timeout is far above what those take even on a loaded machine
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook[sentenceHooks.outgoing]=5s")
			.run((context) -> {
				hooks(context).rewrite = (payload) -> {
					if (payload.segment() == 1) {
						block(never);
					}
					return payload.withText(payload.text().toUpperCase());
				};
				List<String> received = new CopyOnWriteArrayList<>();
				Disposable turn = chatClient(context).prompt()
					.user("Count")
					.stream()
					.content()
					.subscribe(received::add);
				this.model.emitAll("One. ", "Two. ", "Three.");
				await().atMost(WAIT).until(turn::isDisposed);
				never.countDown();
				assertThat(String.join("", received)).isEqualTo("ONE. Two. THREE.");
			});
	}

	@Test
	void cancellingInTheMiddleOfASentenceFinishesTheTurnOnceAndSendsNothingMore() {
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.run((context) -> {
			hooks(context).rewrite = (payload) -> {
				if (payload.segment() == 1) {
					block(release);
				}
				return payload;
			};
			List<String> received = new CopyOnWriteArrayList<>();
			Disposable turn = chatClient(context).prompt().user("Count").stream().content().subscribe(received::add);
			this.model.emit("One. ");
			this.model.emit("Two. ");
			this.model.emit("Thr");
			await().atMost(WAIT).until(() -> hooks(context).segments.size() == 2);
			turn.dispose();
			release.countDown();
			RecordingObservers observers = ChatTurnTests.observers(context);
			await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
			await().atMost(WAIT).untilTrue(this.model.cancelled);
			assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).isEqualTo(TurnStatus.CANCELLED);
			assertThat(received).containsExactly("One. ");
			assertThat(hooks(context).segments).hasSize(2);
		});
	}

	private static void block(CountDownLatch latch) {
		try {
			latch.await(5, TimeUnit.MINUTES);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	private static SentenceHooks hooks(AssertableApplicationContext context) {
		return context.getBean(SentenceHooks.class);
	}

	static class ToolCallGuard {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload guard(ToolCallPayload call) {
			this.calls.add(call.toolName());
			return call;
		}

	}

	static class SentenceHooks {

		final List<OutgoingTextPayload> segments = new CopyOnWriteArrayList<>();

		volatile UnaryOperator<OutgoingTextPayload> rewrite = (payload) -> payload
			.withText(payload.text().toUpperCase());

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		OutgoingTextPayload outgoing(OutgoingTextPayload payload) {
			this.segments.add(payload);
			return this.rewrite.apply(payload);
		}

	}

}
