package io.mantlehooks.sample;

/**
 * A request to the chat API that breaks one of its rules: its message is written for the
 * client (which field, what is allowed), and {@link ErrorReplies} answers 400 with it.
 * Only this exception's text reaches a client; any other exception's stays in the log.
 */
class InvalidRequestException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	InvalidRequestException(String message) {
		super(message, null, false, false);
	}

}
