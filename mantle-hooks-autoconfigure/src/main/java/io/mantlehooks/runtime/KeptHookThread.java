package io.mantlehooks.runtime;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A hook thread that one sequence of awaited invocations keeps between them: the
 * tool-result hooks of one tool batch, each of which runs right after its tool returned
 * and before the next tool runs. After an invocation the thread spins for the next one
 * instead of going back to the hook executor, so that a hook whose tool came back within
 * the spin starts without a thread hand-off (a wake-up through the scheduler, which costs
 * more than a quick hook's own work).
 * <p>
 * The thread is kept only while it spins, under the limits of a turn's wait
 * ({@link HookWait}): a JVM-wide number of spinners, none on a single processor, and
 * backing off when the next invocation keeps coming too late (each kept thread counts for
 * itself: {@link HookRunner#keepThread()}). When it may not spin, or the spin ends first,
 * the thread goes back to the executor and the next invocation starts a new task, as
 * without a kept thread. So a kept thread never holds an executor thread idle and never
 * delays an invocation: one that comes while the thread still runs an earlier invocation
 * (a hook past its timeout, perhaps ignoring its interrupt) goes to the executor at once.
 * Each invocation keeps its own timeout, counted from its hand-off, as everywhere, and
 * every invocation handed over runs exactly once.
 * <p>
 * {@link #close()} ends the keeping: a spinning thread stops at once, and later
 * invocations go to the executor. Made by {@link HookRunner#keepThread()}.
 */
public final class KeptHookThread implements Executor, AutoCloseable {

	private static final Log logger = LogFactory.getLog(KeptHookThread.class);

	/** No thread: the next invocation starts one. */
	private static final Object NONE = new Object();

	/** The thread spins for the next invocation. */
	private static final Object SPINNING = new Object();

	/** The thread runs an invocation. */
	private static final Object RUNNING = new Object();

	private final Executor executor;

	private final HookWait wait;

	/**
	 * {@link #NONE}, {@link #SPINNING}, {@link #RUNNING}, or the invocation handed over
	 * and not yet taken. Only {@link #execute} moves it from {@code NONE} or
	 * {@code SPINNING} (to an invocation); only the thread moves it on from there, so an
	 * invocation is handed over and taken exactly once.
	 */
	private final AtomicReference<Object> state = new AtomicReference<>(NONE);

	private volatile boolean closed;

	/**
	 * Whether the thread that hands the invocations over waits for one's result now: set
	 * by
	 * {@link HookRunner#runAndWait(HookPoint, HookPayload, HookScope, KeptHookThread)}.
	 */
	private volatile boolean callerWaiting;

	/**
	 * The thread that started the kept thread: an executor that runs tasks on their
	 * caller would make it spin for an invocation only it could hand over.
	 */
	private volatile @Nullable Thread starter;

	private final Runnable thread = this::work;

	private final BooleanSupplier handedOver = () -> this.state.get() != SPINNING;

	private final BooleanSupplier closing = () -> this.closed;

	private final BooleanSupplier callerStillWaiting = () -> this.callerWaiting;

	/**
	 * How the thread that hands invocations over waits for their results: with the same
	 * spin and spinner slots as the kept thread's wait, but backing off on its own. A
	 * sequence whose results come late (a burst of batches, a slow tool) must not make
	 * the runner's other waits, those of every {@code .call()} turn, stop spinning.
	 */
	private final HookWait callerWait;

	KeptHookThread(Executor executor, HookWait wait) {
		this.executor = executor;
		this.wait = wait;
		this.callerWait = wait.sibling();
	}

	/**
	 * Return how the thread that hands invocations over waits for their results.
	 * @return the wait, its backing off its own
	 */
	HookWait callerWait() {
		return this.callerWait;
	}

	/**
	 * Run an invocation on the kept thread when it spins for one, else on a new task of
	 * the hook executor, which becomes the kept thread unless one still runs.
	 * @param invocation the invocation
	 * @throws RejectedExecutionException if the hook executor refuses the task
	 */
	@Override
	public void execute(Runnable invocation) {
		if (!this.closed) {
			if (this.state.compareAndSet(SPINNING, invocation)) {
				return;
			}
			if (this.state.compareAndSet(NONE, invocation)) {
				startThread(invocation);
				return;
			}
		}
		// closed, or the thread still runs an earlier invocation (one past its timeout,
		// perhaps), or has not taken the one before: it waits for nobody
		this.executor.execute(invocation);
	}

	private void startThread(Runnable invocation) {
		this.starter = Thread.currentThread();
		try {
			this.executor.execute(this.thread);
		}
		catch (RuntimeException | Error ex) {
			this.state.compareAndSet(invocation, NONE);
			throw ex;
		}
	}

	/**
	 * Stop keeping the thread: a spinning thread goes back to the executor at once (after
	 * running an invocation handed over to it), one that runs an invocation after it;
	 * later invocations go to the executor.
	 */
	@Override
	public void close() {
		this.closed = true;
	}

	/**
	 * Tell the kept thread whether the thread that hands it invocations waits for a
	 * result now. While it does, the kept thread's spin for the next invocation does not
	 * count its time yet (within limits, {@link HookWait#spinUntil}): that thread may
	 * have parked, and the time it takes to be woken is no sign that the next invocation
	 * comes late. Without it, one late invocation sends the next to a new task, its
	 * caller parks for that one, and the wake-up outlasts the next kept thread's spin,
	 * and so on for the rest of the sequence.
	 * @param waiting whether the caller waits now
	 */
	void callerWaiting(boolean waiting) {
		this.callerWaiting = waiting;
	}

	/**
	 * Return whether the caller waits for a result now: for tests.
	 */
	boolean isCallerWaiting() {
		return this.callerWaiting;
	}

	/**
	 * Return whether a thread is kept now (spinning, or running or about to run an
	 * invocation): for tests.
	 */
	boolean isKept() {
		return this.state.get() != NONE;
	}

	/**
	 * Return whether this thread's spins back off, after spins the next invocation
	 * outlasted: for tests.
	 */
	boolean backingOff() {
		return this.wait.backingOff();
	}

	/**
	 * Return whether the kept thread spins for the next invocation now: the invocation
	 * handed over next most likely goes to it, and the spinner's slot it holds frees as
	 * it takes that invocation ({@link HookWait#getFromKeptThread}).
	 * @return whether it spins now
	 */
	boolean isSpinning() {
		return this.state.get() == SPINNING;
	}

	/**
	 * The kept thread: run what is handed over, then spin for the next.
	 */
	private void work() {
		boolean mayStay = Thread.currentThread() != this.starter;
		Object next = this.state.get();
		// whether the state is this thread's RUNNING, which nothing else may change; once
		// it spins, what is handed over may be taken by another task (below)
		boolean running = false;
		try {
			// taken by compare-and-set: a task the executor queued and then refused to
			// start (its execute threw) may still run later, beside its successor
			while (next instanceof Runnable invocation && this.state.compareAndSet(invocation, RUNNING)) {
				running = true;
				runSafely(invocation);
				if (this.closed || !mayStay) {
					this.state.set(NONE);
					return;
				}
				running = false;
				this.state.set(SPINNING);
				spin();
				if (this.state.compareAndSet(SPINNING, NONE)) {
					// the spin ended, or a close: nothing was handed over
					return;
				}
				next = this.state.get();
			}
		}
		catch (Throwable ex) {
			leave(running);
			throw ex;
		}
	}

	/**
	 * The thread leaves on a {@code Throwable} from its own bookkeeping (an {@code Error}
	 * while it logs a failure, say): the next hand-over must start a thread again, and an
	 * invocation handed over to it while it spun must still run, exactly once.
	 * @param running whether the state is still this thread's own {@code RUNNING}
	 */
	private void leave(boolean running) {
		if (running) {
			this.state.set(NONE);
			return;
		}
		if (this.state.compareAndSet(SPINNING, NONE)) {
			return;
		}
		// taken by compare-and-set, as work() takes it: a stale task may be taking it
		// too, and a RUNNING found here is that task's, not this thread's
		Object handedOver = this.state.get();
		if (handedOver instanceof Runnable invocation && this.state.compareAndSet(invocation, NONE)) {
			try {
				this.executor.execute(invocation);
			}
			catch (RuntimeException refused) {
				runSafely(invocation);
			}
		}
	}

	private void spin() {
		try {
			this.wait.spinUntil(this.handedOver, this.closing, this.callerStillWaiting);
		}
		catch (Throwable ex) {
			// a failure while spinning (an Error, say) only ends the spin: the state must
			// move on, or a later hand-over would wait for a thread that is gone
			logger.debug("The kept hook thread's spin failed", ex);
		}
	}

	private static void runSafely(Runnable invocation) {
		// an interrupt that came while the thread spun was meant for nobody
		Thread.interrupted();
		try {
			invocation.run();
		}
		catch (Throwable ex) {
			// an invocation reports its own outcome; this thread stays usable
			logger.debug("A hook invocation threw out of its task", ex);
		}
		finally {
			// an interrupt meant for the invocation must not reach the next one
			Thread.interrupted();
		}
	}

}
