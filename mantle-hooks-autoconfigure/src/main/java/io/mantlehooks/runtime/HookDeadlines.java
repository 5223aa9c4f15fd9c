package io.mantlehooks.runtime;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Enforces the timeouts of hook invocations: every few milliseconds one sweep over the
 * invocations in flight completes the outcome of each that ran past its timeout with a
 * {@link TimeoutException}. Cheaper per invocation than a timeout task of its own on a
 * scheduler (no timer wake-up per hook call, no queue lock to add and cancel one), at the
 * price of firing up to one tick late.
 */
final class HookDeadlines {

	static final long TICK_MILLIS = 5;

	private final ConcurrentLinkedQueue<Watched> watched = new ConcurrentLinkedQueue<>();

	private final ConcurrentLinkedQueue<ObserverBatch> batches = new ConcurrentLinkedQueue<>();

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
	 * Watch a batch of observers until all have started, so that one that runs long does
	 * not hold up the others (see {@link ObserverBatch#sweep()}).
	 * @param batch the batch, not yet submitted
	 */
	void watch(ObserverBatch batch) {
		this.batches.add(batch);
	}

	/**
	 * Return how many invocations are watched (finished ones leave at the next sweep).
	 */
	int watching() {
		return this.watched.size();
	}

	private void sweep() {
		if (!this.batches.isEmpty()) {
			this.batches.removeIf((batch) -> !batch.sweep());
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
