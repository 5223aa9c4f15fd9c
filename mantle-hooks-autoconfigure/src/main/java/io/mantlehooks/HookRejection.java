package io.mantlehooks;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Vetoes the current message or reply. Allowed in {@code @ModifyIncomingMessage} (the
 * model is never called) and {@code @ModifyOutgoingText} (the draft reply is dropped).
 * The user then receives the named response, or the point's packaged fallback. The reason
 * is for logs and the response context only; it never reaches the user.
 */
public final class HookRejection extends HookSignal {

	private static final long serialVersionUID = 1L;

	/** Why the hook rejected, for logs and {@code mantle.reason}. */
	private final String reason;

	/** The name of the response the user receives, or {@code null} for the fallback. */
	private final @Nullable String responseMessage;

	/**
	 * Create a rejection that replies with the point's packaged fallback response.
	 * @param reason why the hook rejected, for logs and {@code mantle.reason}
	 */
	public HookRejection(String reason) {
		this(reason, null);
	}

	/**
	 * Create a rejection that replies with a named response.
	 * @param reason why the hook rejected, for logs and {@code mantle.reason}
	 * @param responseMessage the name of a response under {@code mantle.hooks.responses}
	 * or in the {@code MessageSource} (for example {@code utter_spam_rejected}); never
	 * free-form text
	 */
	public HookRejection(String reason, @Nullable String responseMessage) {
		super("Hook rejected: " + reason);
		Assert.notNull(reason, "'reason' must not be null");
		this.reason = reason;
		this.responseMessage = responseMessage;
	}

	/**
	 * Return why the hook rejected.
	 * @return the reason
	 */
	public String reason() {
		return this.reason;
	}

	/**
	 * Return the name of the response to send instead, if the hook gave one.
	 * @return the response name
	 */
	public Optional<String> responseMessage() {
		return Optional.ofNullable(this.responseMessage);
	}

}
