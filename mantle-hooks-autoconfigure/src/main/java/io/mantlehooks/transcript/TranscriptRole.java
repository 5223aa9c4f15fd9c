package io.mantlehooks.transcript;

/**
 * Who said a transcript entry.
 */
public enum TranscriptRole {

	/**
	 * The user's message, as the incoming-message hooks left it (or as sent, when
	 * rejected).
	 */
	USER,

	/** The reply the user received. */
	ASSISTANT

}
