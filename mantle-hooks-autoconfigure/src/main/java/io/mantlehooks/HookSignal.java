package io.mantlehooks;

/**
 * A control signal a modify hook throws to steer the turn on purpose. Signals are control
 * flow, not failures: fail-open handling never swallows them. A signal thrown at a point
 * that does not allow it is logged and discarded, and the input payload continues.
 * Signals carry no stack trace.
 *
 * @see HookRejection
 * @see RetryModel
 */
public abstract sealed class HookSignal extends RuntimeException permits HookRejection, RetryModel {

	private static final long serialVersionUID = 1L;

	protected HookSignal(String message) {
		super(message, null, false, false);
	}

}
