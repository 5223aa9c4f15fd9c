package io.mantlehooks.runtime;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.Stalls;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.OnTurnStarted;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Observers added right after a drain task started wait for the deadline sweep; when the
 * runner closes, the sweep stops, so the runner hands them to the executor itself. The
 * executor here holds each task until the test runs it.
 */
class ObserversAtCloseTests {

	private static final int ATTEMPTS = 50;

	@Test
	void observersWaitingForTheSweepWhenTheRunnerClosesAreHandedToTheExecutor() {
		CountingObserver observer = new CountingObserver();
		ObserverQueueTests.HeldExecutor executor = new ObserverQueueTests.HeldExecutor();
		HookRunner runner = new HookRunner(IsolatedRuntime.registryWith(observer), executor);
		TurnStartedPayload payload = new TurnStartedPayload(false, "turn-1", "user-1", Map.of(), Channel.none());
		boolean deferred = false;
		int starts = 0;
		try {
			for (int attempt = 0; attempt < ATTEMPTS && !deferred; attempt++) {
				// after a quiet while, an observer wakes a hook thread at once
				Stalls.sleep(2 * ObserverQueue.QUIET_NANOS / 1_000_000);
				runner.observe(HookPoint.TURN_STARTED, payload, HookScope.none());
				starts++;
				assertThat(executor.held).isNotEmpty();
				while (!executor.held.isEmpty()) {
					executor.runNext();
				}
				// right after that drain task started: this one waits for the sweep,
				// unless the machine stalled for the quiet millisecond in between
				runner.observe(HookPoint.TURN_STARTED, payload, HookScope.none());
				starts++;
				deferred = executor.held.isEmpty();
				while (!deferred && !executor.held.isEmpty()) {
					executor.runNext();
				}
			}
			assertThat(deferred).as("an observer left to the sweep in %d attempts", ATTEMPTS).isTrue();
		}
		finally {
			runner.destroy();
		}
		assertThat(executor.held).hasSize(1);
		executor.runNext();
		assertThat(observer.started).hasValue(starts);
		assertThat(runner.getObserversInFlight()).isZero();
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
