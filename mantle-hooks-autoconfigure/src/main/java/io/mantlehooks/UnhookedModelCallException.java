package io.mantlehooks;

/**
 * Thrown, with {@code mantle.hooks.unhooked-calls=fail}, when a {@code ChatModel} is
 * called outside a hooked turn: no hook would have run for the call.
 */
public class UnhookedModelCallException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create the exception.
	 * @param message what was called, from where, and the fix
	 */
	public UnhookedModelCallException(String message) {
		super(message);
	}

}
