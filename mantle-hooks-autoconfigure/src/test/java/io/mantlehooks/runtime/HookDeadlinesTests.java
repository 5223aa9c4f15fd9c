package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/**
 * The deadline sweep outlives a sweeper that throws: a scheduled task that throws is
 * never run again, and with it every hook timeout would end.
 */
class HookDeadlinesTests {

	@Test
	void aThrowingSweeperDoesNotEndTheSweeps() {
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		try {
			HookDeadlines deadlines = new HookDeadlines(timer);
			AtomicInteger sweeps = new AtomicInteger();
			deadlines.onSweep(() -> {
				throw new IllegalStateException("executor broken");
			});
			deadlines.onSweep(sweeps::incrementAndGet);
			await().atMost(Duration.ofSeconds(60)).until(() -> sweeps.get() >= 3);
		}
		finally {
			timer.shutdownNow();
		}
	}

}
