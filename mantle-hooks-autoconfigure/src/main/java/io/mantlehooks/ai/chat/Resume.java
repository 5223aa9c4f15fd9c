package io.mantlehooks.ai.chat;

import io.mantlehooks.ai.approval.StoredBatch;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;

/**
 * A turn that resumes a paused batch: passed down the chain in the request context from
 * the turn advisor, which claimed the batch, to the tool loop, which runs or declines it.
 *
 * @param batch the claimed batch
 * @param approved whether to run it ({@code false}: declined)
 * @param reason why the user declined, {@code ""} when approved
 */
record Resume(StoredBatch batch, boolean approved, String reason) {

	/** The request-context key; internal to the engine. */
	static final String KEY = "mantle.resume";

	static @Nullable Resume of(ChatClientRequest request) {
		return (request.context().get(KEY) instanceof Resume resume) ? resume : null;
	}

}
