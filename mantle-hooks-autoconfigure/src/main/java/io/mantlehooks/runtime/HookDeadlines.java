package io.mantlehooks.runtime;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Enforces the timeouts of hook invocations: every few milliseconds one sweep over the
 * invocations in flight completes the outcome of each that ran past its timeout with a
 * {@link TimeoutException}. Cheaper per invocation than a timeout task of its own on a
 * scheduler (no timer wake-up per hook call, no queue lock to add and cancel one), at the
 * price of firing up to one tick late.
 * <p>
 * A thread that runs invocations one after another (an observer drain) watches them
 * through one {@link Slot} instead: the sweep reads the one it runs now, so starting an
 * observer adds nothing to a queue that every turn's threads share.
 */
final class HookDeadlines {

	private static final Log logger = LogFactory.getLog(HookDeadlines.class);

	static final long TICK_MILLIS = 5;

	private final ConcurrentLinkedQueue<HookInvocation> watched = new ConcurrentLinkedQueue<>();

	private final List<Runnable> sweepers = new CopyOnWriteArrayList<>();

	private final ConcurrentLinkedQueue<Slot> slots = new ConcurrentLinkedQueue<>();

	HookDeadlines(ScheduledExecutorService timer) {
		timer.scheduleWithFixedDelay(this::sweep, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
	}

	/**
	 * Watch the invocation until its outcome completes or its
	 * {@link HookInvocation#deadline() deadline}, set before, passes.
	 * @param invocation the invocation
	 */
	void watch(HookInvocation invocation) {
		this.watched.add(invocation);
	}

	/**
	 * Open a slot for a thread that runs invocations one after another; it is watched
	 * until {@link Slot#close() closed}.
	 * @return the slot
	 */
	Slot openSlot() {
		Slot slot = new Slot();
		this.slots.add(slot);
		return slot;
	}

	/**
	 * Return how many slots are open: for tests.
	 */
	int openSlots() {
		return this.slots.size();
	}

	/**
	 * Run something at every sweep, on the sweeping thread (the observer queue's check
	 * for progress, {@link ObserverQueue#sweep()}).
	 * @param sweeper what to run; it must not block
	 */
	void onSweep(Runnable sweeper) {
		this.sweepers.add(sweeper);
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
		for (Slot slot : this.slots) {
			HookInvocation running = slot.running;
			if (running != null) {
				doneOrTimedOut(running, now);
			}
		}
		this.watched.removeIf((invocation) -> doneOrTimedOut(invocation, now));
	}

	/**
	 * Time the invocation out when it is still running past its deadline.
	 * @return whether it needs no more watching: its outcome completed, or it timed out
	 * now
	 */
	private static boolean doneOrTimedOut(HookInvocation invocation, long now) {
		if (invocation.outcome().isDone()) {
			return true;
		}
		if (now - invocation.deadline() >= 0) {
			invocation.timeOut();
			return true;
		}
		return false;
	}

	/**
	 * What one thread runs now, watched by every sweep until the thread closes the slot:
	 * an invocation set here times out at its {@link HookInvocation#deadline()}, and one
	 * that outlives its turn in the slot (a stage still pending when its method returned)
	 * is handed to {@link #watch} by the invocation itself.
	 */
	final class Slot implements AutoCloseable {

		private volatile @Nullable HookInvocation running;

		private Slot() {
		}

		/**
		 * Watch this invocation, whose deadline is set, instead of the one before.
		 * @param invocation the invocation the thread starts now
		 */
		void watch(HookInvocation invocation) {
			this.running = invocation;
		}

		@Override
		public void close() {
			this.running = null;
			HookDeadlines.this.slots.remove(this);
		}

	}

}
