package io.mantlehooks.ai.chat;

import org.jspecify.annotations.Nullable;

/**
 * Why a turn's reply is not (only) the model's: the values of the {@code mantle.outcome}
 * response-context key and the reason that goes with them. The first outcome of a turn is
 * the one reported: a rejected fallback does not hide the rejection it replaced.
 *
 * @param value the {@code mantle.outcome} value
 * @param reason the {@code mantle.reason} value; for logs and the application, never
 * shown to users
 */
record Outcome(String value, String reason) {

	/** A hook rejected the message or the reply. */
	static final String REJECTED = "rejected";

	/** A fail-closed hook crashed, timed out or returned something invalid. */
	static final String HOOK_ERROR = "hook_error";

	/** The turn reached {@code mantle.hooks.max-iterations} model calls. */
	static final String MAX_ITERATIONS = "max_iterations";

	/** The turn was cancelled (its {@code .call()} thread interrupted). */
	static final String CANCELLED = "cancelled";

	/** A tool call waits for a person's approval. */
	static final String AWAITING_APPROVAL = "awaiting_approval";

	/** An approval or denial named no pending batch. */
	static final String APPROVAL_NOT_FOUND = "approval_not_found";

	/** The turn may not decide the batch it named; the batch keeps waiting. */
	static final String APPROVAL_NOT_ALLOWED = "approval_not_allowed";

	static Outcome rejected(String reason) {
		return new Outcome(REJECTED, reason);
	}

	static Outcome hookError(String reason) {
		return new Outcome(HOOK_ERROR, reason);
	}

	static @Nullable Outcome first(@Nullable Outcome earlier, @Nullable Outcome later) {
		return (earlier != null) ? earlier : later;
	}

}
