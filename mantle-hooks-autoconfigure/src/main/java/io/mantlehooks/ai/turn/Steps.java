package io.mantlehooks.ai.turn;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

import io.mantlehooks.runtime.execution.HookThreadPool;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Schedulers;

/**
 * The two drivers of {@link Step}s. {@link #join} runs a step on the calling thread and
 * blocks where it waits ({@code .call()}); {@link #mono} never blocks: blocking work, and
 * whatever follows a wait, run on the executor it is given ({@code .stream()}; the
 * starter gives Reactor's bounded-elastic scheduler, {@link #ELASTIC}, where Spring AI
 * runs a stream's tools and its {@code BaseAdvisor}s), so the rest of a stream never runs
 * on a hook's thread.
 * <p>
 * Cancelling the {@code Mono} (or interrupting the thread that joins) stops the step
 * where it is: a hook that is running finishes (it is not interrupted) and its result is
 * dropped. The future the step waited for is cancelled, so work behind it that has not
 * started yet (the next calls of a tool batch's preflight) is not started.
 */
public final class Steps {

	/**
	 * Reactor's bounded-elastic scheduler as an executor: where a stream's blocking work
	 * and its continuations after a hook run, as Spring AI runs a stream's tools.
	 */
	public static final Executor ELASTIC = (task) -> Schedulers.boundedElastic().schedule(task);

	private Steps() {
	}

	/**
	 * Run the step on this thread.
	 * @param <T> the result type
	 * @param step the step
	 * @return its result
	 * @throws TurnCancelledException when the thread is interrupted while it waits
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static <T> T join(Step<T> step) {
		// the innermost continuation waits in a variable, the ones around it on a stack
		// made on the second nested bind: most joins never nest deeper than one
		Function next = null;
		Deque<Function> outer = null;
		Step current = step;
		while (true) {
			if (current instanceof Step.Bind bind) {
				if (next != null) {
					if (outer == null) {
						outer = new ArrayDeque<>(4);
					}
					outer.push(next);
				}
				next = bind.next;
				current = bind.step;
			}
			else if (current instanceof Step.Done done) {
				if (next == null) {
					return (T) done.value;
				}
				Function then = next;
				next = (outer == null || outer.isEmpty()) ? null : outer.pop();
				current = (Step) then.apply(done.value);
			}
			else if (current instanceof Step.Await await) {
				current = (Step) await.then.apply(await(await.pending));
			}
			else {
				if (Thread.currentThread().isInterrupted()) {
					throw new TurnCancelledException();
				}
				Step.Blocking blocking = (Step.Blocking) current;
				current = (Step) blocking.then.apply(blocking.work.get());
			}
		}
	}

	private static @Nullable Object await(CompletableFuture<?> pending) {
		if (Thread.currentThread().isInterrupted()) {
			// an interrupted turn stops at its next wait, even for a result already there
			pending.cancel(false);
			throw new TurnCancelledException();
		}
		try {
			return HookThreadPool.await(pending);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			pending.cancel(false);
			throw new TurnCancelledException();
		}
		catch (ExecutionException ex) {
			throw rethrow(ex.getCause());
		}
	}

	/**
	 * Run the step without blocking. Until its first wait it runs on the subscribing
	 * thread; blocking work and what follows a wait run on the given executor.
	 * @param <T> the result type
	 * @param step the step
	 * @param executor where blocking work and continuations run
	 * @return a {@code Mono} of the step's result
	 */
	public static <T> Mono<T> mono(Step<T> step, Executor executor) {
		if (step instanceof Step.Done<T> done) {
			return Mono.justOrEmpty(done.value);
		}
		return Mono.create((sink) -> {
			Driver<T> driver = new Driver<>(sink, executor);
			sink.onCancel(driver::cancel);
			driver.resume(step);
		});
	}

	private static RuntimeException rethrow(@Nullable Throwable cause) {
		if (cause instanceof RuntimeException runtime) {
			return runtime;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		return new CompletionException(cause);
	}

	/**
	 * Interprets one step for {@link #mono}. Only one thread drives at a time: each
	 * resumption is handed to the executor when the future or task it waited for
	 * completes.
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static final class Driver<T> {

		private final MonoSink<T> sink;

		private final Executor executor;

		private final Deque<Function> continuations = new ArrayDeque<>(4);

		private volatile boolean cancelled;

		/** The future the step waits for now, cancelled with the turn. */
		private volatile @Nullable CompletableFuture<?> awaiting;

		Driver(MonoSink<T> sink, Executor executor) {
			this.sink = sink;
			this.executor = executor;
		}

		void cancel() {
			this.cancelled = true;
			CompletableFuture<?> pending = this.awaiting;
			if (pending != null) {
				pending.cancel(false);
			}
		}

		void resume(Step start) {
			Step current = start;
			try {
				while (!this.cancelled) {
					if (current instanceof Step.Bind bind) {
						this.continuations.push(bind.next);
						current = bind.step;
					}
					else if (current instanceof Step.Done done) {
						if (this.continuations.isEmpty()) {
							if (done.value != null) {
								this.sink.success((T) done.value);
							}
							else {
								this.sink.success();
							}
							return;
						}
						current = (Step) this.continuations.pop().apply(done.value);
					}
					else if (current instanceof Step.Await await) {
						if (!await.pending.isDone()) {
							this.awaiting = await.pending;
							if (this.cancelled) {
								// cancelled while the wait was set up
								await.pending.cancel(false);
							}
							await.pending.whenComplete((value, ex) -> continueWith(await.then, value, (Throwable) ex));
							return;
						}
						current = (Step) await.then.apply(await.pending.join());
					}
					else {
						Step.Blocking blocking = (Step.Blocking) current;
						this.executor.execute(() -> {
							Object value;
							try {
								value = blocking.work.get();
							}
							catch (Throwable ex) {
								fail(ex);
								return;
							}
							resumeWith(blocking.then, value, null);
						});
						return;
					}
				}
			}
			catch (Throwable ex) {
				fail(ex);
			}
		}

		/**
		 * Go on after a wait, on the executor rather than on the thread that completed
		 * the wait (a hook's).
		 */
		private void continueWith(Function then, @Nullable Object value, @Nullable Throwable ex) {
			try {
				this.executor.execute(() -> resumeWith(then, value, ex));
			}
			catch (RuntimeException refused) {
				fail(refused);
			}
		}

		private void resumeWith(Function then, @Nullable Object value, @Nullable Throwable ex) {
			if (ex != null) {
				fail(ex);
				return;
			}
			Step next;
			try {
				next = (Step) then.apply(value);
			}
			catch (Throwable failure) {
				fail(failure);
				return;
			}
			resume(next);
		}

		private void fail(Throwable ex) {
			Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof VirtualMachineError || cause instanceof LinkageError) {
				// Reactor drops JVM-fatal errors instead of signalling them; a turn that
				// failed that way must still end
				cause = new IllegalStateException("The turn failed with " + cause.getClass().getName(), cause);
			}
			if (!this.cancelled) {
				this.sink.error(cause);
			}
		}

	}

}
