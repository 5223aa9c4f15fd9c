package io.mantlehooks.ai;

/**
 * Values of the {@code mantle.outcome} response-context key.
 */
final class Outcomes {

	/** A hook rejected the message or reply. */
	static final String REJECTED = "rejected";

	/** A fail-closed hook crashed, timed out or returned something invalid. */
	static final String HOOK_ERROR = "hook_error";

	private Outcomes() {
	}

}
