package io.mantlehooks.runtime;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

import io.mantlehooks.HookPayload;
import org.jspecify.annotations.Nullable;

/**
 * One modify hook run on a sequence of payloads, one after another, in one hand-off to
 * the hook executor (a tool-call batch's preflight): the task that hand-off starts runs
 * invocation after invocation on its own thread. Each invocation is still a whole
 * {@link ModifyLane} invocation (its circuit breaker and bulkhead, its observation, its
 * own timeout counted from the moment it starts, the same decision), so the only thing
 * saved is the thread switch there and back per payload.
 * <p>
 * An invocation that does not end on the sequence's thread in time (it timed out, or its
 * stage is still pending) hands the rest of the sequence over: the lane completes its
 * result on a fresh hook-executor task, which goes on with the next payload, while the
 * old thread, when its hook finally returns, stops. So no hook holds the sequence past
 * its own timeout, as no hook holds its turn.
 *
 * @param <P> the payload type
 */
final class ModifySequence<P extends HookPayload> {

	private final ModifyLane lane;

	private final HookMethod hook;

	private final HookScope scope;

	private final HookRunner.Sequence<P> sequence;

	private final List<HookMethod> observers;

	private final ObserveLane observeLane;

	private final CompletableFuture<@Nullable Void> done = new CompletableFuture<>();

	ModifySequence(ModifyLane lane, HookMethod hook, HookScope scope, HookRunner.Sequence<P> sequence,
			List<HookMethod> observers, ObserveLane observeLane) {
		this.lane = lane;
		this.hook = hook;
		this.scope = scope;
		this.sequence = sequence;
		this.observers = observers;
		this.observeLane = observeLane;
	}

	/**
	 * Hand the sequence to the executor and return a future that completes, on a
	 * hook-executor thread, when it ended.
	 */
	CompletableFuture<@Nullable Void> start(Executor executor) {
		try {
			executor.execute(() -> run(null));
		}
		catch (RejectedExecutionException ex) {
			// no thread for the sequence: each invocation is handed to the executor on
			// its own, so no hook ever runs on the caller's thread (the lane turns the
			// executor's refusal into the hook's failure)
			run(executor);
		}
		return this.done;
	}

	/**
	 * Run invocations until the sequence ends, one stops it, or one is handed over.
	 * @param launcher where invocations run, {@code null} for this thread
	 */
	private void run(@Nullable Executor launcher) {
		while (true) {
			if (this.done.isDone()) {
				// the turn stopped waiting (cancelled): no further hook is started
				return;
			}
			P payload;
			try {
				payload = this.sequence.next();
			}
			catch (Throwable ex) {
				this.done.completeExceptionally(ex);
				return;
			}
			if (payload == null) {
				this.done.complete(null);
				return;
			}
			Invocation invocation = new Invocation(payload);
			CompletableFuture<ModifyResult<P>> result;
			try {
				result = this.lane.start(this.hook, payload, this.scope, (launcher != null) ? launcher : invocation);
			}
			catch (RuntimeException ex) {
				// as a step that could not start its hook: the turn fails with it
				this.done.completeExceptionally(ex);
				return;
			}
			// registered before the hook runs: a timeout may complete the result while
			// it still does
			invocation.collecting = true;
			try {
				result.whenComplete(invocation);
				invocation.runHere();
			}
			finally {
				invocation.collecting = false;
			}
			ModifyResult<P> decided = invocation.decidedHere;
			if (decided == null) {
				// handed over: whoever completes the result goes on
				return;
			}
			if (!pass(payload, decided)) {
				return;
			}
		}
	}

	/**
	 * Start the point's observers with the payload that proceeds, then pass the result
	 * on.
	 * @return whether the sequence goes on
	 */
	private boolean pass(P payload, ModifyResult<P> decided) {
		if (!this.observers.isEmpty()) {
			HookPayload seen = (decided instanceof ModifyResult.Proceed<P> proceed) ? proceed.payload() : payload;
			try {
				this.observeLane.start(this.observers, seen, this.scope);
			}
			catch (RuntimeException ex) {
				// observers never affect the turn, not even when they cannot start
			}
		}
		boolean more;
		try {
			more = this.sequence.accept(decided);
		}
		catch (Throwable ex) {
			this.done.completeExceptionally(ex);
			return false;
		}
		if (!more) {
			this.done.complete(null);
		}
		return more;
	}

	/**
	 * One invocation of the sequence: the lane hands it here to run on the sequence's
	 * thread, and its result comes back either on that thread while the hook is still
	 * being run (the hook returned in time: the loop goes on) or on another one (a
	 * timeout, a stage completed later: that thread goes on).
	 */
	private final class Invocation implements Executor, BiConsumer<ModifyResult<P>, @Nullable Throwable> {

		private final Thread runner = Thread.currentThread();

		private final P payload;

		private @Nullable Runnable task;

		/**
		 * Whether the runner is still between registering for the result and the end of
		 * the hook's run; only the runner writes and reads it.
		 */
		private boolean collecting;

		private @Nullable ModifyResult<P> decidedHere;

		Invocation(P payload) {
			this.payload = payload;
		}

		@Override
		public void execute(Runnable command) {
			this.task = command;
		}

		void runHere() {
			Runnable command = this.task;
			if (command == null) {
				// not started (an open breaker, a hung hook): the result is there already
				return;
			}
			command.run();
		}

		@Override
		public void accept(@Nullable ModifyResult<P> decided, @Nullable Throwable ex) {
			if (ex != null || decided == null) {
				// the lane's results never complete exceptionally
				ModifySequence.this.done.completeExceptionally(
						(ex != null) ? ex : new IllegalStateException("Hook result without a decision"));
				return;
			}
			if (Thread.currentThread() == this.runner && this.collecting) {
				// the runner's loop goes on with it once the hook's run is over
				this.decidedHere = decided;
				return;
			}
			// handed over: this thread goes on with the rest of the sequence
			if (pass(this.payload, decided)) {
				run(null);
			}
		}

	}

}
