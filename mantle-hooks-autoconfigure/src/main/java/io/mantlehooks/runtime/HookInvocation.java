package io.mantlehooks.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One call of a hook method on the hook executor, under the hook's timeout (watched by
 * {@link HookDeadlines}). The outcome future completes with what the method returned (for
 * an asynchronous hook: what its stage or {@code Mono} produced), with what it threw
 * (anything, {@code Error}s included), or with a {@link TimeoutException} when the
 * timeout passed first; then a blocking hook's thread is interrupted and an asynchronous
 * hook's stage cancelled. A modify hook's timeout counts from the moment it is handed to
 * the executor (the turn waits for it, so its wait for a thread counts too); an observe
 * hook's counts from the moment a thread starts it (nobody waits for it, and on a
 * saturated machine it should still run rather than time out unstarted, so that turn
 * started and turn finished observers always see their pair).
 * <p>
 * The invocation counts as finished (and its hook is told so, once) only when the hook
 * has really stopped: its thread is free again and its stage, if any, has completed or
 * been cancelled. A hook that ignores interrupts therefore keeps counting against its
 * lane's limit until it returns.
 * <p>
 * An observer's invocation reports its end to an {@link Ending} given when it is made,
 * called by whichever thread completes the outcome, rather than through a dependent of
 * the outcome future: nobody else waits for an observer, and a dependent is two objects
 * and a stack push per observer and turn.
 */
final class HookInvocation implements Runnable, ObserverQueue.Task {

	private static final Log logger = LogFactory.getLog(HookInvocation.class);

	private static final AtomicIntegerFieldUpdater<HookInvocation> UNSETTLED = AtomicIntegerFieldUpdater
		.newUpdater(HookInvocation.class, "unsettled");

	private final HookMethod hook;

	private final Object payload;

	private final HookScope scope;

	private final HookDeadlines deadlines;

	private final CompletableFuture<@Nullable Object> outcome = new CompletableFuture<>();

	private final @Nullable Ending ending;

	/** Thread and stage still to settle: 2 for an asynchronous hook, 1 otherwise. */
	private volatile int unsettled;

	/** When the timeout passes, in {@link System#nanoTime()}: set once it counts. */
	private long deadline;

	/** Whether the method was called: its stage, if any, is settled from there on. */
	private boolean invoked;

	private @Nullable Thread thread;

	/** Whether the method still ran when the timeout abandoned it. */
	private boolean straggling;

	/** Whether the abandoned invocation holds a permit of its hook's bulkhead. */
	private boolean heldPermit;

	private volatile @Nullable CompletableFuture<?> stage;

	private HookInvocation(HookMethod hook, Object payload, HookScope scope, HookDeadlines deadlines,
			@Nullable Ending ending) {
		this.hook = hook;
		this.payload = payload;
		this.scope = scope;
		this.deadlines = deadlines;
		this.ending = ending;
		this.unsettled = (hook.style() == InvocationStyle.BLOCKING) ? 1 : 2;
	}

	/**
	 * Start the hook on the executor and return its invocation, whose {@link #outcome()}
	 * completes as described above.
	 */
	static HookInvocation start(HookMethod hook, Object payload, HookScope scope, Executor executor,
			HookDeadlines deadlines) {
		HookInvocation invocation = new HookInvocation(hook, payload, scope, deadlines, null);
		// a modify hook's timeout counts from now
		invocation.deadline = System.nanoTime() + hook.timeout().toNanos();
		deadlines.watch(invocation);
		invocation.submit(executor);
		return invocation;
	}

	/**
	 * Make an observer's invocation, for a thread that {@link #run(HookDeadlines.Slot)
	 * runs} it later; its timeout counts from then.
	 * @param ending what to tell when the outcome completes, once
	 */
	static HookInvocation observer(HookMethod observer, Object payload, HookScope scope, HookDeadlines deadlines,
			Ending ending) {
		return new HookInvocation(observer, payload, scope, deadlines, ending);
	}

	/**
	 * Hand the invocation to an executor; when it refuses, the outcome is that refusal.
	 */
	private void submit(Executor executor) {
		try {
			executor.execute(this);
		}
		catch (RejectedExecutionException ex) {
			reject(ex);
		}
	}

	/**
	 * The executor refused the invocation: that is its outcome, and it never runs.
	 */
	@Override
	public void reject(RejectedExecutionException ex) {
		fail(ex);
		settleAll();
	}

	CompletableFuture<@Nullable Object> outcome() {
		return this.outcome;
	}

	/**
	 * The timeout passed: count the hook as a straggler if its method still runs, then
	 * complete the outcome (so a late return is never used), then abandon it. Counting
	 * first means the executor already knows about the straggler when the waiting side
	 * continues: the outcome's dependents run while it completes, before the abandon. An
	 * outcome that completed first (the hook returned just in time) is not abandoned.
	 * <p>
	 * It never throws: what abandoning throws (a stage whose cancellation runs the
	 * application's code) is logged, since the deadline sweep that calls this would
	 * otherwise end, and every later timeout with it.
	 */
	void timeOut() {
		try {
			markStraggling();
			if (fail(new TimeoutException("Hook '" + this.hook.name() + "' timed out"))) {
				abandon();
			}
		}
		catch (Throwable ex) {
			logFailure("Timing out hook '" + this.hook.name() + "' failed", ex);
		}
	}

	HookMethod hook() {
		return this.hook;
	}

	/**
	 * Return when the timeout passes, in {@link System#nanoTime()}; for an observer, set
	 * when a thread starts it.
	 */
	long deadline() {
		return this.deadline;
	}

	/**
	 * Return whether the caller runs on this invocation's own hook thread, where it may
	 * go on without another hop.
	 */
	synchronized boolean isOnHookThread() {
		return this.thread == Thread.currentThread();
	}

	/**
	 * Run a modify hook's invocation, watched since it was {@link #start started}.
	 */
	@Override
	public void run() {
		runWatched();
	}

	/**
	 * Run an observer's invocation on a thread that watches what it runs through the
	 * slot: its timeout counts from now.
	 */
	@Override
	public void run(HookDeadlines.Slot slot) {
		this.deadline = System.nanoTime() + this.hook.timeout().toNanos();
		slot.watch(this);
		runWatched();
	}

	private void runWatched() {
		boolean timedOutUnstarted;
		synchronized (this) {
			// checked under the lock that abandonThread takes: a timeout either sees
			// this thread (and interrupts and counts it) or is seen here
			timedOutUnstarted = this.outcome.isDone();
			if (!timedOutUnstarted) {
				this.thread = Thread.currentThread();
			}
		}
		if (timedOutUnstarted) {
			// timed out before a thread was free to run it
			settleAll();
			return;
		}
		try {
			this.scope.runHook(this.hook.name(), this::invoke);
		}
		catch (Throwable ex) {
			// the turn's context could not be entered or left (a thread-local accessor
			// or the binding threw): that is the outcome, unless the hook's came first,
			// so an observer whose drain moves on is not left unwatched and unreported
			fail(ex);
			if (!this.invoked) {
				settleStage();
			}
		}
		finally {
			synchronized (this) {
				this.thread = null;
				if (this.straggling) {
					this.straggling = false;
					VirtualHookExecutor.caughtUp();
					this.hook.caughtUp(this.heldPermit);
				}
			}
			// a timeout's interrupt must not leak into the executor's next task
			Thread.interrupted();
			settle();
		}
	}

	private void invoke() {
		this.invoked = true;
		long started = System.nanoTime();
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
		if (future.isDone()) {
			// a stage that is already complete costs what a blocking hook does: no
			// callback to register, nothing to cancel later
			completeWith(future);
			settleStage();
			return;
		}
		this.stage = future;
		if (this.ending != null) {
			// the thread's slot watches the next observer once this one returns: the
			// pending stage is watched on its own, to the same deadline
			this.deadlines.watch(this);
		}
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

	private void completeWith(CompletableFuture<@Nullable Object> done) {
		Object result;
		try {
			result = done.join();
		}
		catch (Throwable ex) {
			fail(unwrap(ex));
			return;
		}
		succeed(result);
	}

	private void succeed(@Nullable Object returned) {
		if (this.outcome.complete(returned)) {
			tell(returned, null);
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
		tell(null, ex);
		return true;
	}

	private void tell(@Nullable Object returned, @Nullable Throwable failure) {
		if (this.ending == null) {
			return;
		}
		try {
			this.ending.ended(returned, failure);
		}
		catch (Throwable ex) {
			// what reports an end must not end the thread that completed the outcome (the
			// deadline sweep's among them), nor keep a timeout from abandoning the hook
			logFailure("Reporting the end of hook '" + this.hook.name() + "' failed", ex);
		}
	}

	private static void logFailure(String message, Throwable ex) {
		if (ex instanceof VirtualMachineError) {
			logger.error(message, ex);
		}
		else {
			logger.warn(message, ex);
		}
	}

	/**
	 * The timeout passed: interrupt the hook's thread if it still runs the method, and
	 * cancel its stage, so nothing it produces late is used.
	 */
	private void abandon() {
		abandonThread();
		CompletableFuture<?> pending = this.stage;
		if (pending != null) {
			pending.cancel(true);
		}
	}

	/**
	 * Interrupt the hook's thread if it still runs the method, and count it as a
	 * straggler until the method returns.
	 */
	private synchronized void abandonThread() {
		if (this.thread != null) {
			this.thread.interrupt();
			markStraggling();
		}
	}

	private synchronized void markStraggling() {
		if (this.thread != null && !this.straggling) {
			this.straggling = true;
			VirtualHookExecutor.straggling();
			this.heldPermit = this.hook.abandoned();
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
		while (this.unsettled > 0) {
			settle();
		}
	}

	private void settle() {
		if (UNSETTLED.decrementAndGet(this) == 0) {
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
	 * What an observer's invocation tells when its outcome completes, on the thread that
	 * completes it (the hook's, the stage's, or the deadline sweep's).
	 */
	@FunctionalInterface
	interface Ending {

		/**
		 * The outcome completed.
		 * @param returned what the hook returned, when it did not fail
		 * @param failure why it failed: what it threw, a {@link TimeoutException}, a
		 * {@link NullStage} or the executor's refusal
		 */
		void ended(@Nullable Object returned, @Nullable Throwable failure);

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
