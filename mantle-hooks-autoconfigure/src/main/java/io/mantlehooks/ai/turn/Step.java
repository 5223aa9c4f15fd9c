package io.mantlehooks.ai.turn;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.util.Assert;

/**
 * One piece of a turn's work, written once and run by either driver of {@link Steps}: the
 * blocking driver of {@code .call()} or the non-blocking one of {@code .stream()}. A step
 * is a value ({@link #done}), a wait for a hook's result ({@link #await}), or blocking
 * work such as running tools ({@link #blocking}); {@link #then} sequences steps.
 * <p>
 * The drivers interpret steps in a loop, so a long chain of steps (a batch of thousands
 * of tool calls, each awaiting its hook) uses constant stack.
 *
 * @param <T> the type of the step's result
 */
public abstract sealed class Step<T> permits Step.Done, Step.Await, Step.Blocking, Step.Bind {

	private Step() {
	}

	/**
	 * Return a step that is already finished.
	 * @param <T> the result type
	 * @param value the result
	 * @return the step
	 */
	public static <T> Step<T> done(T value) {
		return new Done<>(value);
	}

	/**
	 * Return a step that waits for a future (a hook's result), then continues.
	 * @param <A> the future's type
	 * @param <T> the result type
	 * @param pending the future; the non-blocking driver continues on the thread that
	 * completes it
	 * @param then what to do with its value
	 * @return the step
	 */
	public static <A, T> Step<T> await(CompletableFuture<A> pending, Function<? super A, Step<T>> then) {
		Assert.notNull(pending, "'pending' must not be null");
		return new Await<>(pending, then);
	}

	/**
	 * Return a step that does blocking work: on the caller's thread in {@code .call()},
	 * on the hook executor in {@code .stream()}.
	 * @param <A> the work's type
	 * @param <T> the result type
	 * @param work the work
	 * @param then what to do with its result
	 * @return the step
	 */
	public static <A, T> Step<T> blocking(Supplier<A> work, Function<? super A, Step<T>> then) {
		return new Blocking<>(work, then);
	}

	/**
	 * Return a step that runs this one, then the step made from its result.
	 * @param <U> the next result type
	 * @param next what to do with this step's result
	 * @return the sequenced step
	 */
	public <U> Step<U> then(Function<? super T, Step<U>> next) {
		Assert.notNull(next, "'next' must not be null");
		return new Bind<>(this, next);
	}

	/**
	 * Return a step that runs this one and transforms its result.
	 * @param <U> the transformed type
	 * @param mapper the transformation
	 * @return the mapped step
	 */
	public <U> Step<U> map(Function<? super T, U> mapper) {
		return then((value) -> done(mapper.apply(value)));
	}

	static final class Done<T> extends Step<T> {

		final T value;

		Done(T value) {
			this.value = value;
		}

	}

	static final class Await<A, T> extends Step<T> {

		final CompletableFuture<A> pending;

		final Function<? super A, Step<T>> then;

		Await(CompletableFuture<A> pending, Function<? super A, Step<T>> then) {
			this.pending = pending;
			this.then = then;
		}

	}

	static final class Blocking<A, T> extends Step<T> {

		final Supplier<A> work;

		final Function<? super A, Step<T>> then;

		Blocking(Supplier<A> work, Function<? super A, Step<T>> then) {
			this.work = work;
			this.then = then;
		}

	}

	static final class Bind<S, T> extends Step<T> {

		final Step<S> step;

		final Function<? super S, Step<T>> next;

		Bind(Step<S> step, Function<? super S, Step<T>> next) {
			this.step = step;
			this.next = next;
		}

	}

}
