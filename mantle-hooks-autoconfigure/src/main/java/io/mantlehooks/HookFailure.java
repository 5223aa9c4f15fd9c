package io.mantlehooks;

import org.jspecify.annotations.Nullable;

/**
 * A modify hook that did not produce a usable result. The caller applies the point's
 * {@link HookPoint#failPolicy() fail policy}. The cause is for logs only: exception text
 * never reaches users.
 *
 * @param hookName the hook's {@code beanName.methodName}
 * @param point the point the hook ran at
 * @param kind what went wrong
 * @param cause the exception, when there was one
 */
public record HookFailure(String hookName, HookPoint point, Kind kind, @Nullable Throwable cause) {

	/**
	 * What went wrong with a modify hook.
	 */
	public enum Kind {

		/** The hook threw an exception that is not a control signal. */
		CRASH,

		/** The hook did not finish within its timeout. */
		TIMEOUT,

		/**
		 * The hook returned {@code null}, an empty {@code Mono} or a value of the wrong
		 * type.
		 */
		INVALID_RETURN,

		/**
		 * The hook is hung: it already held its limit of invocations past their timeout
		 * and still running ({@code mantle.hooks.modify.max-concurrent}); it was not
		 * called.
		 */
		BULKHEAD_FULL,

		/**
		 * The hook's circuit breaker is open after repeated failures
		 * ({@code mantle.hooks.circuit-breaker}); it was not called.
		 */
		CIRCUIT_OPEN,

		/** The calling thread was interrupted while it waited for the hook. */
		INTERRUPTED

	}

}
