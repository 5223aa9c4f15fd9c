package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Load is not a fault for a sentence-by-sentence hook either: a burst of streamed turns,
 * far more sentence invocations at once than {@code mantle.hooks.modify.max-concurrent},
 * against a healthy hook. Every sentence of every reply is rewritten, in order; no
 * invocation is skipped or failed and the breaker stays closed.
 */
class SentenceBurstTests {

	private static final int TURNS = 500;

	/** Sentence invocations that wait for each other (max-concurrent is 64). */
	private static final int WAVE = 100;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(ChatTestSupport.mantleConfigurations())
		.withBean("chatModel", ThreeSentenceModel.class)
		.withBean("slowSentences", SlowSentences.class)
		.withPropertyValues("mantle.hooks.timeouts.modify=120s");

	@Test
	void aBurstOfStreamedTurnsNeverSkipsASentence() {
		this.contextRunner.run((context) -> {
			ChatClient chatClient = ChatTestSupport.chatClient(context);
			List<String> replies = Flux.range(0, TURNS)
				.flatMap((i) -> chatClient.prompt()
					.user("question " + i)
					.stream()
					.content()
					.collectList()
					.map((chunks) -> String.join("", chunks)), TURNS)
				.collectList()
				.block(Duration.ofMinutes(5));
			assertThat(replies).hasSize(TURNS).allSatisfy((reply) -> assertThat(reply).isEqualTo("ONE. TWO. THREE."));
			HookMethod hook = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.OUTGOING_TEXT);
			Map<HookOutcome, Long> outcomes = hook.outcomeCounts();
			assertThat(outcomes).containsEntry(HookOutcome.PROCEEDED, 3L * TURNS);
			assertThat(outcomes.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3L * TURNS);
			assertThat(hook.rejectedInvocations()).isZero();
			assertThat(hook.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.CLOSED);
			// the burst was one: more sentences hooked at once than max-concurrent (64)
			assertThat(context.getBean(SlowSentences.class).mostAtOnce.get()).isGreaterThanOrEqualTo(WAVE);
		});
	}

	static class SlowSentences {

		private final AtomicInteger atOnce = new AtomicInteger();

		final AtomicInteger mostAtOnce = new AtomicInteger();

		/** The first invocations wait for each other, so that they run at once. */
		private final CountDownLatch wave = new CountDownLatch(WAVE);

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		OutgoingTextPayload shout(OutgoingTextPayload payload) throws InterruptedException {
			this.mostAtOnce.accumulateAndGet(this.atOnce.incrementAndGet(), Math::max);
			try {
				this.wave.countDown();
				this.wave.await(2, TimeUnit.MINUTES);
				return payload.withText(payload.text().toUpperCase());
			}
			finally {
				this.atOnce.decrementAndGet();
			}
		}

	}

	/**
	 * Streams "One. Two. Three." in three chunks, off the caller's thread.
	 */
	static class ThreeSentenceModel implements ChatModel {

		@Override
		public ChatResponse call(Prompt prompt) {
			throw new UnsupportedOperationException("this model only streams");
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.just("One. ", "Two. ", "Three.")
				.map((text) -> new ChatResponse(List.of(new Generation(new AssistantMessage(text)))))
				.publishOn(Schedulers.parallel());
		}

		@Override
		public ChatOptions getDefaultOptions() {
			return ChatOptions.builder().build();
		}

	}

}
