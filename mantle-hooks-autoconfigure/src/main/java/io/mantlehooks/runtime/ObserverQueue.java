package io.mantlehooks.runtime;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * The observer invocations of one runner, waiting for a hook thread. A drain task on the
 * hook executor runs them one after another, first come first served, and stays while
 * there are more: under load, starting an observer is adding it to this queue, with no
 * hand-off of its own. Each observer keeps its own timeout, counted from its start and
 * watched through the drain's {@link HookDeadlines.Slot}.
 * <p>
 * A slow or hung observer must not hold up the others, nor a burst of them the ones
 * behind: {@link HookDeadlines} calls {@link #sweep()} every tick, and when an invocation
 * waits since the previous sweep while every drain task has started (one runs long, or
 * they cannot keep up), another drain task starts. So an observer waits about two ticks
 * at most behind one that runs long, and hung observers hold only the threads they hang
 * on (their invocations are limited by {@code observers.max-concurrent} as before).
 * <p>
 * Adding to an empty queue starts a drain task at once only when none started for
 * {@link #QUIET_NANOS}; otherwise what is added waits for a drain task that still runs,
 * or for the next sweep, which starts one for invocations nobody drains. Each drain task
 * wakes a hook thread; under load, when observers are quick, a drain task per observer
 * point was a thread hand-off per point and turn (a streamed turn with ten observers paid
 * five), and now a sweep's worth of observers shares one. An observer then starts up to a
 * tick later; nothing waits for it, and its timeout counts from its start.
 */
final class ObserverQueue {

	/**
	 * How many invocations one drain task runs before it hands the rest to a new task: a
	 * thread that never stops running is the last the scheduler picks among hundreds (and
	 * a virtual one holds its carrier), so under load a drain takes turns like any other
	 * task, one hand-off per this many observers.
	 */
	static final int RUNS_PER_DRAIN = 32;

	/**
	 * How long after a drain task started an add leaves the start of the next one to the
	 * sweep.
	 */
	static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final Executor executor;

	private final HookDeadlines deadlines;

	private final ConcurrentLinkedQueue<Task> waiting = new ConcurrentLinkedQueue<>();

	/** Drain tasks handed to the executor and not finished. */
	private final AtomicInteger drains = new AtomicInteger();

	/** Drain tasks a thread runs now. */
	private final AtomicInteger draining = new AtomicInteger();

	private final AtomicLong added = new AtomicLong();

	private final AtomicLong taken = new AtomicLong();

	/** How many were added by the previous sweep (sweeping thread only). */
	private long addedAtLastSweep;

	private final LongSupplier clock;

	/** When the last drain task was handed to the executor. */
	private volatile long lastDrainStarted;

	ObserverQueue(Executor executor, HookDeadlines deadlines) {
		this(executor, deadlines, System::nanoTime);
	}

	ObserverQueue(Executor executor, HookDeadlines deadlines, LongSupplier clock) {
		this.executor = executor;
		this.deadlines = deadlines;
		this.clock = clock;
		this.lastDrainStarted = clock.getAsLong() - QUIET_NANOS;
	}

	/**
	 * Queue invocations, in order; a drain task starts when none is there.
	 */
	void addAll(List<? extends Task> tasks) {
		if (tasks.isEmpty()) {
			return;
		}
		this.waiting.addAll(tasks);
		this.added.addAndGet(tasks.size());
		if (this.drains.get() == 0 && this.clock.getAsLong() - this.lastDrainStarted >= QUIET_NANOS) {
			startDrain();
		}
	}

	/**
	 * Look at the queue from the deadline sweep: start a drain task when invocations wait
	 * and none is there (they were added right after one started), or one more when an
	 * invocation waits since the previous sweep and no drain task is still waiting for a
	 * thread.
	 */
	void sweep() {
		long addedBefore = this.addedAtLastSweep;
		this.addedAtLastSweep = this.added.get();
		if (this.taken.get() < addedBefore && this.draining.get() >= this.drains.get()) {
			startDrain();
		}
		else {
			flush();
		}
	}

	/**
	 * Start a drain task for what waits, if none is there: at every sweep, and when the
	 * runner closes, so that what was added last does not wait for a sweep that no longer
	 * comes.
	 */
	void flush() {
		if (this.drains.get() == 0 && !this.waiting.isEmpty()) {
			startDrain();
		}
	}

	private void startDrain() {
		this.drains.incrementAndGet();
		try {
			this.executor.execute(this::drain);
			this.lastDrainStarted = this.clock.getAsLong();
		}
		catch (RuntimeException ex) {
			// an executor of the application may fail otherwise than by refusing: either
			// way no drain started, and a count left up would start none ever again
			if (this.drains.decrementAndGet() == 0) {
				// nobody is left to run them: refused is their outcome
				RejectedExecutionException refusal = (ex instanceof RejectedExecutionException rejected) ? rejected
						: new RejectedExecutionException(ex);
				for (Task task = poll(); task != null; task = poll()) {
					task.reject(refusal);
				}
			}
		}
	}

	private void drain() {
		this.draining.incrementAndGet();
		try (HookDeadlines.Slot slot = this.deadlines.openSlot()) {
			int runs = 0;
			for (Task task = poll(); task != null; task = poll()) {
				task.run(slot);
				if (++runs == RUNS_PER_DRAIN && !this.waiting.isEmpty()) {
					// counted before this one leaves, so nothing is left behind meanwhile
					startDrain();
					return;
				}
			}
		}
		finally {
			this.draining.decrementAndGet();
			// a task added after the last poll, by a caller that saw this drain still
			// counted, is taken by the last drain to leave
			if (this.drains.decrementAndGet() == 0 && !this.waiting.isEmpty()) {
				startDrain();
			}
		}
	}

	private @Nullable Task poll() {
		Task task = this.waiting.poll();
		if (task != null) {
			this.taken.incrementAndGet();
		}
		return task;
	}

	/**
	 * What waits in the queue: an observer invocation.
	 */
	interface Task {

		/**
		 * Run it on this drain's thread.
		 * @param slot what watches the invocation this thread runs: one per drain, so
		 * that starting an observer adds it to no queue the deadline sweep reads
		 */
		void run(HookDeadlines.Slot slot);

		/**
		 * The executor refused to run it: that is its outcome.
		 * @param ex the refusal
		 */
		void reject(RejectedExecutionException ex);

	}

}
