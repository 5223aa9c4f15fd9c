package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.mantlehooks.Channel;
import io.mantlehooks.HeldTranscriptStore;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * A streamed turn may be cancelled at any moment: before it starts, between turn started
 * and the model's subscription, while a hook runs, mid-stream. Every turn that started
 * finishes exactly once, and nothing is left running.
 */
class CancellationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(ChatTestSupport.mantleConfigurations())
		.withBean("pacedModel", PacedModel.class)
		.withBean("recordingObservers", RecordingObservers.class)
		// the hooks here are meant to succeed: timeouts no loaded machine reaches
		.withPropertyValues("mantle.hooks.timeouts.modify=60s", "mantle.hooks.timeouts.observe=60s");

	@Test
	void cancelledBetweenTurnStartedAndTheModelsSubscriptionFinishesOnceLiveAndBuffered() {
		for (boolean buffered : List.of(false, true)) {
			ApplicationContextRunner runner = buffered ? this.contextRunner.withBean("outgoingHook", OutgoingHook.class)
					: this.contextRunner;
			runner.run((context) -> {
				RecordingObservers observers = context.getBean(RecordingObservers.class);
				SlowStep slowStep = new SlowStep();
				Disposable subscription = chatClient(context).prompt()
					.user("Hi")
					.advisors(slowStep)
					.stream()
					.content()
					.subscribe();
				await().atMost(WAIT).until(() -> observers.of(TurnStartedPayload.class).size() == 1);
				// the turn has started and waits in the application's advisor: cancel it
				// there, then let the advisor go on (in order, whatever the
				// machine's speed)
				await().atMost(WAIT).until(slowStep::waiting);
				subscription.dispose();
				slowStep.go.complete(null);
				await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
				await().during(Duration.ofMillis(300))
					.atMost(WAIT)
					.until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
				assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).as("buffered=" + buffered)
					.isEqualTo(TurnStatus.CANCELLED);
				assertThat(context.getBean(PacedModel.class).active()).hasValue(0);
			});
		}
	}

	@Test
	void cancelledWhileTheIncomingHookRunsStartsNoTurn() {
		this.contextRunner.withBean("slowIncomingHook", SlowIncomingHook.class).run((context) -> {
			SlowIncomingHook hook = context.getBean(SlowIncomingHook.class);
			Disposable subscription = chatClient(context).prompt().user("Hi").stream().content().subscribe();
			assertThat(hook.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			// cancelled while the hook is surely still running: it returns only
			// when released
			subscription.dispose();
			hook.release.countDown();
			RecordingObservers observers = context.getBean(RecordingObservers.class);
			// the running hook finishes (its observers see what it returned), but no turn
			// starts and the model is never asked
			await().during(Duration.ofMillis(400))
				.atMost(WAIT)
				.until(() -> observers.of(TurnStartedPayload.class).isEmpty()
						&& observers.of(TurnFinishedPayload.class).isEmpty());
			assertThat(context.getBean(PacedModel.class).subscriptions()).hasValue(0);
		});
	}

	@Test
	void everyStartedTurnOfAStormOfCancelledStreamsFinishesExactlyOnce() {
		this.contextRunner.withBean("outgoingHook", OutgoingHook.class).run((context) -> stormOf(context, 400));
		this.contextRunner.run((context) -> stormOf(context, 400));
	}

	private void stormOf(AssertableApplicationContext context, int turns) throws InterruptedException {
		ChatClient chatClient = chatClient(context);
		Random random = new Random(42);
		List<Disposable> subscriptions = new ArrayList<>();
		CountDownLatch ended = new CountDownLatch(turns);
		for (int i = 0; i < turns; i++) {
			Flux<String> stream = chatClient.prompt().user("turn " + i).stream().content();
			switch (i % 3) {
				case 0 -> {
					Disposable subscription = stream.doFinally((signal) -> ended.countDown()).subscribe();
					subscriptions.add(subscription);
					Mono.delay(Duration.ofMillis(random.nextInt(120))).subscribe((tick) -> subscription.dispose());
				}
				case 1 -> subscriptions
					.add(stream.take(1 + random.nextInt(3)).doFinally((signal) -> ended.countDown()).subscribe());
				default -> subscriptions.add(stream.doFinally((signal) -> ended.countDown()).subscribe());
			}
		}
		assertThat(ended.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		RecordingObservers observers = context.getBean(RecordingObservers.class);
		// no hook invocation still running, so no started/finished pair still on its way
		await().atMost(WAIT)
			.until(() -> context.getBean(HookRegistry.class).hooks().stream().allMatch((hook) -> hook.inFlight() == 0));
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(ids(observers.of(TurnFinishedPayload.class)))
				.isEqualTo(ids(observers.of(TurnStartedPayload.class))));
		await().during(Duration.ofMillis(300))
			.atMost(WAIT)
			.until(() -> observers.of(TurnFinishedPayload.class).size() == ids(observers.of(TurnStartedPayload.class))
				.size());
		List<String> finished = observers.of(TurnFinishedPayload.class)
			.stream()
			.map(TurnFinishedPayload::turnId)
			.toList();
		assertThat(finished).doesNotHaveDuplicates();
		assertThat(observers.of(TurnFinishedPayload.class)).extracting(TurnFinishedPayload::status)
			.contains(TurnStatus.COMPLETED, TurnStatus.CANCELLED);
		// nothing left behind: no model stream still subscribed, no hook invocation and
		// no hook-executor thread still busy
		await().atMost(WAIT).untilAsserted(() -> assertThat(context.getBean(PacedModel.class).active()).hasValue(0));
		if (context.getBean("mantleHookExecutor") instanceof ThreadPoolTaskExecutor executor) {
			await().atMost(WAIT).until(() -> executor.getActiveCount() == 0);
		}
		subscriptions.forEach(Disposable::dispose);
	}

	private static Set<String> ids(List<? extends Object> payloads) {
		return payloads.stream()
			.map((payload) -> (payload instanceof TurnStartedPayload started) ? started.turnId()
					: ((TurnFinishedPayload) payload).turnId())
			.collect(Collectors.toSet());
	}

	@Test
	void aStreamCancelledWhileItsReplyIsWrittenToTheTranscriptWritesItOnce() {
		this.contextRunner.withPropertyValues("mantle.hooks.transcript.enabled=true")
			.withBean(SlowTranscript.class)
			.run((context) -> {
				SlowTranscript transcript = context.getBean(SlowTranscript.class);
				Disposable subscription = chatClient(context).prompt()
					.user("Hi")
					.advisors(MantleHooks.identity("u-slow", Channel.of("web")))
					.stream()
					.content()
					.subscribe();
				// the whole reply arrived; the caller leaves while it is being written
				assertThat(transcript.writingReply.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				subscription.dispose();
				await().during(Duration.ofMillis(600))
					.atMost(WAIT)
					.untilAsserted(() -> assertThat(transcript.find("u-slow"))
						.extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::outcome)
						.containsExactly(tuple(TranscriptRole.USER, "Hi", null),
								tuple(TranscriptRole.ASSISTANT, "word0 word1 word2 word3 word4 ", null)));
			});
	}

	@Test
	void aStreamCancelledMidReplyKeepsWhatWentOutAsADiscardedEntry() {
		this.contextRunner.withPropertyValues("mantle.hooks.transcript.enabled=true").run((context) -> {
			// the caller leaves after two chunks: how much reached its user is unknown
			List<String> received = chatClient(context).prompt()
				.user("Hi")
				.advisors(MantleHooks.identity("u-gone", Channel.of("web")))
				.stream()
				.content()
				.filter((text) -> !text.isEmpty())
				.take(2)
				.collectList()
				.block(WAIT);
			TranscriptStore transcript = context.getBean(TranscriptStore.class);
			await().atMost(WAIT).until(() -> transcript.find("u-gone").size() == 2);
			assertThat(transcript.find("u-gone"))
				.extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::discarded,
						TranscriptEntry::outcome)
				.containsExactly(tuple(TranscriptRole.USER, "Hi", false, null),
						tuple(TranscriptRole.ASSISTANT, String.join("", received), true, "cancelled"));
		});
	}

	@Test
	void aStormOfCancelledStreamsKeepsEveryTranscriptEntryOnceAndRejectedPairsWhole() throws InterruptedException {
		this.contextRunner.withPropertyValues("mantle.hooks.transcript.enabled=true")
			.withBean("spamGuard", SpamGuard.class)
			.run((context) -> {
				int turns = 300;
				Random random = new Random(7);
				CountDownLatch ended = new CountDownLatch(turns);
				for (int i = 0; i < turns; i++) {
					String text = ((i % 4) == 0) ? "spam " + i : "turn " + i;
					Disposable subscription = chatClient(context).prompt()
						.user(text)
						.advisors(MantleHooks.identity("u-" + i, Channel.of("web")))
						.stream()
						.content()
						.doFinally((signal) -> ended.countDown())
						.subscribe();
					if ((i % 3) != 0) {
						Mono.delay(Duration.ofMillis(random.nextInt(80))).subscribe((tick) -> subscription.dispose());
					}
				}
				assertThat(ended.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				TranscriptStore store = context.getBean(TranscriptStore.class);
				await().atMost(WAIT)
					.until(() -> context.getBean(HookRegistry.class)
						.hooks()
						.stream()
						.allMatch((hook) -> hook.inFlight() == 0));
				// writes after a cancel land on the hook executor, later than the
				// stream's end;
				// once they hold, they keep holding (no late duplicate)
				await().during(Duration.ofMillis(300)).atMost(WAIT).untilAsserted(() -> {
					for (int i = 0; i < turns; i++) {
						assertTranscriptOfStormTurn(store.find("u-" + i), i);
					}
				});
			});
	}

	/**
	 * At most the user's message and one reply, each once; a rejected pair whole; a turn
	 * nobody cancelled complete.
	 */
	private static void assertTranscriptOfStormTurn(List<TranscriptEntry> entries, int i) {
		String user = ((i % 4) == 0) ? "spam " + i : "turn " + i;
		assertThat(entries).as("turn %d", i).hasSizeLessThanOrEqualTo(2);
		assertThat(entries).filteredOn((entry) -> entry.role() == TranscriptRole.USER)
			.as("turn %d", i)
			.hasSizeLessThanOrEqualTo(1)
			.allSatisfy((entry) -> assertThat(entry.text()).isEqualTo(user));
		if ((i % 4) == 0 && !entries.isEmpty()) {
			assertThat(entries).as("turn %d: the rejected pair, whole", i)
				.extracting(TranscriptEntry::role, TranscriptEntry::discarded)
				.containsExactly(tuple(TranscriptRole.USER, true), tuple(TranscriptRole.ASSISTANT, true));
		}
		if ((i % 3) == 0) {
			assertThat(entries).as("turn %d ran to the end", i).hasSize(2);
		}
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	/**
	 * An advisor of the application that holds the turn until the test lets it go on (at
	 * most ten seconds).
	 */
	static class SlowStep implements StreamAdvisor {

		final CompletableFuture<Void> go = new CompletableFuture<>();

		private volatile boolean waiting;

		boolean waiting() {
			return this.waiting;
		}

		@Override
		public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
			return Mono.fromFuture(this.go, true)
				.timeout(Duration.ofSeconds(60), Mono.empty())
				.doOnSubscribe((subscription) -> this.waiting = true)
				.thenMany(Flux.defer(() -> chain.nextStream(request)));
		}

		@Override
		public String getName() {
			return "slowStep";
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE + 150;
		}

	}

	static class SpamGuard {

		@ModifyIncomingMessage
		IncomingMessagePayload guard(IncomingMessagePayload message) {
			if (message.text().startsWith("spam")) {
				throw new HookRejection("spam");
			}
			return message;
		}

	}

	/** A transcript whose first reply write takes a while, and says when it starts. */
	static class SlowTranscript extends HeldTranscriptStore {

		final CountDownLatch writingReply = new CountDownLatch(1);

		@Override
		protected void hold(TranscriptEntry entry) {
			if (entry.role() == TranscriptRole.ASSISTANT && this.writingReply.getCount() > 0) {
				this.writingReply.countDown();
				Stalls.sleep(300);
			}
		}

	}

	static class OutgoingHook {

		@ModifyOutgoingText
		OutgoingTextPayload review(OutgoingTextPayload text) {
			return text.withText(text.text() + " [reviewed]");
		}

	}

	static class SlowIncomingHook {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@ModifyIncomingMessage
		IncomingMessagePayload slow(IncomingMessagePayload message) throws InterruptedException {
			this.entered.countDown();
			this.release.await(60, TimeUnit.SECONDS);
			return message;
		}

	}

	/**
	 * Streams five words, one every 10 ms, and counts its live subscriptions.
	 */
	static class PacedModel implements ChatModel {

		private final AtomicInteger active = new AtomicInteger();

		private final AtomicInteger subscriptions = new AtomicInteger();

		// methods, not fields: the bean is wrapped in a class-preserving proxy
		AtomicInteger active() {
			return this.active;
		}

		AtomicInteger subscriptions() {
			return this.subscriptions;
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			return response("one two three four five");
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.interval(Duration.ofMillis(10))
				.take(5)
				.map((i) -> response("word" + i + " "))
				.doOnSubscribe((subscription) -> {
					this.active.incrementAndGet();
					this.subscriptions.incrementAndGet();
				})
				.doFinally((signal) -> this.active.decrementAndGet());
		}

		private static ChatResponse response(String text) {
			return new ChatResponse(List.of(new Generation(new AssistantMessage(text))));
		}

	}

}
