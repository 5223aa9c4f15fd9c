package io.mantlehooks.ai.turn;

/**
 * Ends a {@code .call()} turn whose thread was interrupted: the turn is cancelled,
 * nothing more runs (no further hook, no further tool of the batch), nothing is sent. The
 * interrupt flag stays set. The turn advisor turns it into a response without
 * generations.
 */
public final class TurnCancelledException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create the exception.
	 */
	public TurnCancelledException() {
		super("The turn's thread was interrupted", null, false, false);
	}

}
