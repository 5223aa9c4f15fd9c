package io.mantlehooks.runtime;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The observers of one point in one turn, run one after another on one hook thread: one
 * hand-off for all of them instead of one each. Each keeps its own timeout, counted from
 * when it starts. An observer that {@link HookDeadlines} finds still running at two
 * sweeps in a row (5 to 10 ms) no longer holds up the others: those not started yet are
 * handed to threads of their own, so a slow or hung observer still delays only itself.
 */
final class ObserverBatch implements Runnable {

	private final HookInvocation[] invocations;

	private final Executor executor;

	/**
	 * The next invocation to claim; each is claimed once, by this task or by a scatter.
	 */
	private final AtomicInteger next = new AtomicInteger();

	/** The invocation this task runs now, {@code -1} before the first. */
	private volatile int running = -1;

	/**
	 * The invocation the previous sweep saw running (only the sweeping thread uses it).
	 */
	private int seenBySweep = -1;

	ObserverBatch(HookInvocation[] invocations, Executor executor) {
		this.invocations = invocations;
		this.executor = executor;
	}

	@Override
	public void run() {
		try {
			for (int i = claim(); i >= 0; i = claim()) {
				this.running = i;
				this.invocations[i].run();
			}
		}
		finally {
			// normally nothing is left; after a throw the others still run, elsewhere
			scatter();
		}
	}

	/**
	 * Hand the batch to the executor; when it refuses, each invocation's outcome is that
	 * refusal.
	 */
	void submit() {
		try {
			this.executor.execute(this);
		}
		catch (RejectedExecutionException ex) {
			for (int i = claim(); i >= 0; i = claim()) {
				this.invocations[i].reject(ex);
			}
		}
	}

	/**
	 * Look at the batch from the deadline sweep: when the same observer runs since the
	 * previous sweep, hand the ones not started yet to threads of their own.
	 * @return whether the batch still has observers to start, and needs watching
	 */
	boolean sweep() {
		if (this.next.get() >= this.invocations.length) {
			return false;
		}
		int current = this.running;
		if (current >= 0 && current == this.seenBySweep) {
			scatter();
			return false;
		}
		this.seenBySweep = current;
		return true;
	}

	private void scatter() {
		for (int i = claim(); i >= 0; i = claim()) {
			this.invocations[i].submit(this.executor);
		}
	}

	private int claim() {
		int index = this.next.getAndIncrement();
		return (index < this.invocations.length) ? index : -1;
	}

}
