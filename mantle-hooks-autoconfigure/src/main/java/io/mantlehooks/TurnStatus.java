package io.mantlehooks;

/**
 * How a turn ended, as reported by {@link TurnFinishedPayload#status()}.
 */
public enum TurnStatus {

	/** The turn finished normally. */
	COMPLETED,

	/** The turn was interrupted, for example a stream cancelled by its subscriber. */
	CANCELLED,

	/** The turn failed, for example a model or tool error. */
	ERROR

}
