package io.mantlehooks;

import java.util.Locale;

/**
 * What became of one hook invocation: the {@code mantle.hook.outcome} of its
 * {@code mantle.hook} observation, and what the actuator endpoint counts per hook.
 */
public enum HookOutcome {

	/** The hook returned in time; its result (or, for an observer, nothing) was used. */
	PROCEEDED,

	/** A modify hook raised {@code HookRejection} where the point allows it. */
	REJECTED,

	/** A modify hook raised {@code RetryModel} where the point allows it. */
	RETRIED,

	/** The hook raised a control signal its point or lane does not support. */
	SIGNAL_DISCARDED,

	/** The hook did not finish within its timeout. */
	TIMEOUT,

	/** The hook threw (an {@code Error} included). */
	CRASH,

	/** The hook returned {@code null}, the wrong type, or a value out of bounds. */
	INVALID_RETURN,

	/**
	 * An observer was not called: it is hung (it already held its limit of invocations
	 * past their timeout and still running).
	 */
	DROPPED,

	/**
	 * A modify hook was not called: it is hung (it already held its limit of invocations
	 * past their timeout and still running).
	 */
	BULKHEAD_FULL,

	/** A modify hook was not called: its circuit breaker is open. */
	CIRCUIT_OPEN;

	private final String tagValue = name().toLowerCase(Locale.ROOT);

	/**
	 * Return the value used in observations, metrics and the endpoint.
	 * @return the lower-case name, for example {@code bulkhead_full}
	 */
	public String tagValue() {
		return this.tagValue;
	}

	/**
	 * Return whether this outcome counts as a failure of the hook for its circuit
	 * breaker: hook faults only (a crash, a timeout, an invalid return). Signals are
	 * decisions, and a hook that was not called (dropped, bulkhead full, circuit open)
	 * did not fail again.
	 * @return whether the hook failed
	 */
	public boolean isFailure() {
		return this == TIMEOUT || this == CRASH || this == INVALID_RETURN;
	}

}
