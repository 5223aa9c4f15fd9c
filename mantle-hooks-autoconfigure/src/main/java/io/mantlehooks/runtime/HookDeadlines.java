package io.mantlehooks.runtime;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Enforces the timeouts of hook invocations: every few milliseconds one sweep over the
 * invocations in flight completes the outcome of each that ran past its timeout with a
 * {@link TimeoutException}. Cheaper per invocation than a timeout task of its own on a
 * scheduler (no timer wake-up per hook call, no queue lock to add and cancel one), at the
 * price of firing up to one tick late.
 */
final class HookDeadlines {

	private static final Log logger = LogFactory.getLog(HookDeadlines.class);

	static final long TICK_MILLIS = 5;

	private final ConcurrentLinkedQueue<Watched> watched = new ConcurrentLinkedQueue<>();

	private final List<Runnable> sweepers = new CopyOnWriteArrayList<>();

	HookDeadlines(ScheduledExecutorService timer) {
		timer.scheduleWithFixedDelay(this::sweep, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
	}

	/**
	 * Watch the invocation from now until its outcome completes or its timeout passes.
	 * @param invocation the invocation, not yet submitted
	 */
	void watch(HookInvocation invocation) {
		this.watched.add(new Watched(invocation, System.nanoTime() + invocation.hook().timeout().toNanos()));
	}

	/**
	 * Run something at every sweep, on the sweeping thread (the observer queue's check
	 * for progress, {@link ObserverQueue#sweep()}).
	 * @param sweeper what to run; it must not block
	 */
	void onSweep(Runnable sweeper) {
		this.sweepers.add(sweeper);
	}

	/**
	 * Return how many invocations are watched (finished ones leave at the next sweep).
	 */
	int watching() {
		return this.watched.size();
	}

	private void sweep() {
		for (Runnable sweeper : this.sweepers) {
			try {
				sweeper.run();
			}
			catch (RuntimeException ex) {
				// a sweep that throws would end the scheduled sweeps, and with them every
				// timeout: the watch below must run whatever a sweeper does
				logger.warn("A hook deadline sweeper failed", ex);
			}
		}
		long now = System.nanoTime();
		this.watched.removeIf((entry) -> {
			if (entry.invocation().outcome().isDone()) {
				return true;
			}
			if (now - entry.deadline() >= 0) {
				entry.invocation().timeOut();
				return true;
			}
			return false;
		});
	}

	private record Watched(HookInvocation invocation, long deadline) {
	}

}
