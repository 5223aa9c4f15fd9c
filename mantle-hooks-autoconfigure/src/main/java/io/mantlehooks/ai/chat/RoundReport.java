package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientResponse;

/**
 * What the model-call advisor tells the tool loop about one round, upward in the response
 * context ({@link #KEY}): the model-response hook asked for another try, or the
 * model-request hook failed closed and the response is the engine's reply.
 *
 * @param kind what happened
 * @param detail the retry feedback, or the failure's reason
 */
record RoundReport(Kind kind, String detail) {

	/**
	 * The response-context key. Internal: removed before the response leaves the turn.
	 */
	static final String KEY = "mantle.round";

	static RoundReport retry(String feedback) {
		return new RoundReport(Kind.RETRY, feedback);
	}

	static RoundReport requestFailed(String reason) {
		return new RoundReport(Kind.REQUEST_FAILED, reason);
	}

	static @Nullable RoundReport of(ChatClientResponse response) {
		return (response.context().get(KEY) instanceof RoundReport report) ? report : null;
	}

	/**
	 * Return the response with this report in its context.
	 */
	ChatClientResponse attachTo(ChatClientResponse response) {
		Map<String, @Nullable Object> context = new HashMap<>(response.context());
		context.put(KEY, this);
		return new ChatClientResponse(response.chatResponse(), context);
	}

	enum Kind {

		/**
		 * {@code RetryModel}: discard this response, call the model again with feedback.
		 */
		RETRY,

		/** The model was not called; the response is the engine's error reply. */
		REQUEST_FAILED

	}

}
