package io.mantlehooks.runtime.execution;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.InvocationStyle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One call of a hook method, handed to the hook executor and bounded by the hook's
 * timeout. The timeout counts from the moment the method starts running: time spent
 * waiting for a thread is the machine's, never the hook's, and so is a moment when the
 * whole process stood still. A deadline is scheduled then and cancelled when the hook
 * ends. The outcome future completes with what the method returned (for an asynchronous
 * hook: what its stage or {@code Mono} produced), with what it threw (anything,
 * {@code Error}s included), or with a {@link TimeoutException} when the deadline came
 * first; then a blocking hook's thread is interrupted and an asynchronous hook's stage
 * cancelled.
 * <p>
 * The invocation counts as finished (and its hook is told so, once) only when the hook
 * has really stopped: its thread is free again and its stage, if any, has completed or
 * been cancelled. A hook that ignores interrupts therefore keeps counting against its
 * lane's limit until it returns, and its thread is replaced in the hook pool meanwhile.
 */
final class HookInvocation implements Runnable {

	private static final Log logger = LogFactory.getLog(HookInvocation.class);

	/**
	 * How late a deadline may fire before its lateness counts as the process standing
	 * still.
	 */
	private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final HookMethod hook;

	private final Object payload;

	private final HookScope scope;

	private final ScheduledExecutorService timer;

	/** The pool whose thread runs the method, when it is one of the starter's pools. */
	private @Nullable HookThreadPool pool;

	private final CompletableFuture<@Nullable Object> outcome = new CompletableFuture<>();

	/** Thread and stage still to settle: 2 for an asynchronous hook, 1 otherwise. */
	private final AtomicInteger unsettled;

	/** When the invocation was handed to the executor, in {@link System#nanoTime()}. */
	private long handedOff;

	/** How long it waited for a thread; {@code -1} until it started. */
	private volatile long queuedNanos = -1;

	/**
	 * When the method started, in {@link System#nanoTime()}; valid once {@link #invoked}.
	 */
	private volatile long started;

	/** Whether the method was called: its stage, if any, is settled from there on. */
	private volatile boolean invoked;

	/** The thread that runs the method, while it does. */
	private @Nullable Thread thread;

	/** Whether the method still ran when the timeout abandoned it. */
	private boolean abandoned;

	/** Whether the abandoned invocation holds a permit of its hook's bulkhead. */
	private boolean heldPermit;

	private volatile @Nullable Future<?> deadline;

	/** When the deadline last set should fire, in {@link System#nanoTime()}. */
	private volatile long due;

	/**
	 * Whether the hook was given time back because its deadline fired late: the process
	 * or the machine stood still (a long GC pause, saturated processors), which stopped
	 * the hook as well as the timer. Given once, so a hook that hangs still times out.
	 */
	private volatile boolean stallCredited;

	private volatile @Nullable CompletableFuture<?> stage;

	HookInvocation(HookMethod hook, Object payload, HookScope scope, ScheduledExecutorService timer) {
		this.hook = hook;
		this.payload = payload;
		this.scope = scope;
		this.timer = timer;
		this.unsettled = new AtomicInteger((hook.style() == InvocationStyle.BLOCKING) ? 1 : 2);
	}

	/**
	 * Hand the invocation to an executor; when it refuses, the outcome is that refusal.
	 * @param executor the executor
	 */
	void submit(Executor executor) {
		this.handedOff = System.nanoTime();
		try {
			executor.execute(this);
		}
		catch (RejectedExecutionException ex) {
			fail(ex);
			settleAll();
		}
	}

	/**
	 * Return the future of what the hook produced.
	 * @return the outcome, which never completes before the method was called
	 */
	CompletableFuture<@Nullable Object> outcome() {
		return this.outcome;
	}

	HookMethod hook() {
		return this.hook;
	}

	HookScope scope() {
		return this.scope;
	}

	/**
	 * Return how long the invocation waited for a thread before its method started.
	 * @return the wait in nanoseconds, {@code 0} when it never started (refused)
	 */
	long queuedNanos() {
		return Math.max(this.queuedNanos, 0);
	}

	/**
	 * Return how long the hook has run: from the start of its method until now.
	 * @return the time in nanoseconds, {@code 0} when the method never started
	 */
	long ranNanos() {
		return this.invoked ? System.nanoTime() - this.started : 0;
	}

	/**
	 * Return whether the caller runs on this invocation's own hook thread, where it may
	 * go on without another hop.
	 */
	synchronized boolean isOnHookThread() {
		return this.thread == Thread.currentThread();
	}

	@Override
	public void run() {
		this.queuedNanos = System.nanoTime() - this.handedOff;
		synchronized (this) {
			this.thread = Thread.currentThread();
			this.pool = HookThreadPool.running();
		}
		try {
			this.scope.runHook(this.hook.name(), this::invoke);
		}
		catch (Throwable ex) {
			// the turn's context could not be entered or left (a thread-local accessor
			// or the binding threw): that is the outcome, unless the hook's came first
			fail(ex);
			if (!this.invoked) {
				settleStage();
			}
		}
		finally {
			synchronized (this) {
				this.thread = null;
				if (this.abandoned) {
					this.abandoned = false;
					this.hook.caughtUp(this.heldPermit);
					if (this.pool != null) {
						this.pool.threadReturned();
					}
				}
			}
			// a timeout's interrupt must not leak into the executor's next task
			Thread.interrupted();
			settle();
		}
	}

	private void invoke() {
		arm(this.hook.timeout().toNanos());
		// the hook's own time starts here, once its deadline is set: a wait for the
		// timer's lock is not the hook's (timeOut checks the time from here)
		long started = System.nanoTime();
		this.started = started;
		this.invoked = true;
		Object returned;
		try {
			returned = this.hook.invoke(this.payload);
		}
		catch (Throwable ex) {
			fail(ex);
			settleStage();
			return;
		}
		if (this.hook.style() == InvocationStyle.BLOCKING) {
			succeed(returned);
			return;
		}
		if (this.outcome.isDone()) {
			reportSlowSynchronousPart(System.nanoTime() - started);
		}
		if (returned == null) {
			fail(new NullStage(this.hook));
			settleStage();
			return;
		}
		CompletableFuture<@Nullable Object> future;
		try {
			future = this.hook.toFuture(returned);
		}
		catch (Throwable ex) {
			fail(ex);
			settleStage();
			return;
		}
		this.stage = future;
		future.whenComplete((result, ex) -> {
			if (ex != null) {
				fail(unwrap(ex));
			}
			else {
				succeed(result);
			}
			settleStage();
		});
		if (this.outcome.isDone() && !future.isDone()) {
			// timed out while the method itself ran: nobody waits for the stage
			future.cancel(true);
		}
	}

	/**
	 * Schedule the deadline in the given time.
	 */
	private void arm(long nanos) {
		this.due = System.nanoTime() + nanos;
		try {
			this.deadline = this.timer.schedule(this::timeOut, nanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the runner closed while this hook waited for a thread: it still runs (an
			// observer of the last turns sees its payload), without a deadline
		}
	}

	/**
	 * The deadline passed: count the hook as abandoned if its method still runs, then
	 * complete the outcome (so a late return is never used), then interrupt the method
	 * and cancel the stage. Counting first means the executor has replaced the thread
	 * when the waiting side continues. An outcome that completed first (the hook returned
	 * just in time) is left alone, and a deadline that came before the hook's own time
	 * was up (it was set before the method started) is set again for the rest. A deadline
	 * that fires later than it was due shows that the process stood still; the hook stood
	 * still with it, so it gets as long again to run, once.
	 * <p>
	 * It never throws: the timer thread runs every hook's deadline.
	 */
	private void timeOut() {
		try {
			if (this.outcome.isDone()) {
				return;
			}
			long timeout = this.hook.timeout().toNanos();
			long now = System.nanoTime();
			long left = this.invoked ? timeout - (now - this.started) : timeout;
			long late = now - this.due;
			if (left <= 0 && !this.stallCredited && late > STALL_NANOS) {
				// the hook stood still at least as long as the timer: it gets that long
				// again, from now, to run
				this.stallCredited = true;
				left = late;
			}
			if (left > 0) {
				arm(left);
				return;
			}
			markAbandoned();
			if (fail(new TimeoutException("Hook '" + this.hook.name() + "' timed out"))) {
				abandon();
			}
		}
		catch (Throwable ex) {
			logFailure("Timing out hook '" + this.hook.name() + "' failed", ex);
		}
	}

	private void succeed(@Nullable Object returned) {
		if (this.outcome.complete(returned)) {
			cancelDeadline();
		}
	}

	/**
	 * Complete the outcome with a failure, unless it completed before.
	 * @return whether this completed it
	 */
	private boolean fail(Throwable ex) {
		if (!this.outcome.completeExceptionally(ex)) {
			return false;
		}
		cancelDeadline();
		return true;
	}

	private void cancelDeadline() {
		Future<?> scheduled = this.deadline;
		if (scheduled != null) {
			scheduled.cancel(false);
		}
	}

	static void logFailure(String message, Throwable ex) {
		if (ex instanceof VirtualMachineError) {
			logger.error(message, ex);
		}
		else {
			logger.warn(message, ex);
		}
	}

	/**
	 * Interrupt the hook's thread if it still runs the method, and cancel its stage, so
	 * nothing it produces late is used.
	 */
	private void abandon() {
		synchronized (this) {
			if (this.thread != null) {
				this.thread.interrupt();
			}
		}
		CompletableFuture<?> pending = this.stage;
		if (pending != null) {
			pending.cancel(true);
		}
	}

	/**
	 * Count the invocation as abandoned while its method still runs: it holds a permit of
	 * its hook's bulkhead and its thread is replaced in the executor until it returns.
	 */
	private synchronized void markAbandoned() {
		if (this.thread != null && !this.abandoned) {
			this.abandoned = true;
			this.heldPermit = this.hook.abandoned();
			if (this.pool != null) {
				this.pool.threadAbandoned();
			}
		}
	}

	private void reportSlowSynchronousPart(long nanos) {
		if (this.hook.markSlowSynchronousPartReported()) {
			logger.warn("Hook '" + this.hook.name() + "' at point " + this.hook.point().configName() + " took "
					+ (nanos / 1_000_000) + "ms to return its " + this.hook.style().returnTypeName()
					+ ", longer than its timeout of " + this.hook.timeout().toMillis()
					+ "ms; it counts as timed out and its late result is never used. Blocking work belongs in a plain"
					+ " method, which the runner calls on the hook executor.");
		}
	}

	private void settleStage() {
		if (this.hook.style() != InvocationStyle.BLOCKING) {
			settle();
		}
	}

	private void settleAll() {
		while (this.unsettled.get() > 0) {
			settle();
		}
	}

	private void settle() {
		if (this.unsettled.decrementAndGet() == 0) {
			this.hook.finished();
		}
	}

	static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while (current instanceof CompletionException && current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	/**
	 * An asynchronous hook returned {@code null} instead of its stage or {@code Mono}.
	 */
	static final class NullStage extends RuntimeException {

		private static final long serialVersionUID = 1L;

		NullStage(HookMethod hook) {
			super("null instead of a " + hook.style().returnTypeName(), null, false, false);
		}

	}

}
