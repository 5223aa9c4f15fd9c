package io.mantlehooks.runtime;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.guard.HookGuards;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hook's outcome counts are made on the first invocation with each outcome: none is
 * lost when many invocations count the first of an outcome at once, and outcomes never
 * seen count zero.
 */
class OutcomeCountsTests {

	private static final int TRIALS = 1_000;

	private static final int COUNTS = 100;

	@Test
	void outcomesNeverSeenCountZero() throws Exception {
		HookMethod hook = freshHook();
		hook.count(HookOutcome.CRASH);
		Map<HookOutcome, Long> counts = hook.outcomeCounts();
		assertThat(counts).hasSize(HookOutcome.values().length).containsEntry(HookOutcome.CRASH, 1L);
		counts.forEach((outcome, count) -> assertThat(count).as(outcome.name())
			.isEqualTo((outcome == HookOutcome.CRASH) ? 1L : 0L));
	}

	@Test
	void theFirstCountsOfAnOutcomeMadeAtOnceAreAllKept() throws Exception {
		// two threads released together by a spin, not a barrier (whose wake-ups come one
		// after the other), so both often find the outcome without a count yet
		for (int i = 0; i < TRIALS; i++) {
			HookMethod hook = freshHook();
			AtomicBoolean go = new AtomicBoolean();
			Runnable counting = () -> {
				while (!go.get()) {
					Thread.onSpinWait();
				}
				for (int c = 0; c < COUNTS; c++) {
					hook.count(HookOutcome.PROCEEDED);
				}
			};
			Thread first = new Thread(counting);
			Thread second = new Thread(counting);
			first.start();
			second.start();
			go.set(true);
			first.join();
			second.join();
			assertThat(hook.outcomeCounts()).as("trial %d", i).containsEntry(HookOutcome.PROCEEDED, 2L * COUNTS);
		}
	}

	private static HookMethod freshHook() throws NoSuchMethodException {
		Method method = CountingObserver.class.getDeclaredMethod("started", TurnStartedPayload.class);
		Duration timeout = Duration.ofSeconds(1);
		return new HookMethod("counting", HookPoint.TURN_STARTED, HookLane.OBSERVE, method, CountingObserver::new,
				timeout, TimeoutSource.LANE,
				HookGuards.defaults().forHook("counting.started", HookPoint.TURN_STARTED, HookLane.OBSERVE, timeout),
				StreamMode.WHOLE, Set.of());
	}

	/**
	 * Counts its invocations.
	 */
	static class CountingObserver {

		final AtomicInteger started = new AtomicInteger();

		@OnTurnStarted
		void started(TurnStartedPayload payload) {
			this.started.incrementAndGet();
		}

	}

}
