package io.mantlehooks.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;

/**
 * What the API answers when something goes wrong: our own validation messages for bad
 * input ({@link InvalidRequestException}, never another exception's text, which may come
 * from a library), and a generic text otherwise. Exception text never reaches the user.
 * Only the chat API: Actuator and the console answer for themselves.
 */
@RestControllerAdvice(assignableTypes = ChatController.class)
class ErrorReplies {

	private static final Logger logger = LoggerFactory.getLogger(ErrorReplies.class);

	@ExceptionHandler(InvalidRequestException.class)
	ProblemDetail badInput(InvalidRequestException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler(Visitors.NotYourConversationException.class)
	ProblemDetail notYours(Visitors.NotYourConversationException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, ex.getMessage());
	}

	@ExceptionHandler(Visitors.TooManyConversationsException.class)
	ProblemDetail full(Visitors.TooManyConversationsException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

	@ExceptionHandler(HttpMessageNotReadableException.class)
	ProblemDetail unreadable(HttpMessageNotReadableException ex) {
		if (ex.getMostSpecificCause() instanceof BodySizeLimit.BodyTooLargeException) {
			return ProblemDetail.forStatusAndDetail(HttpStatus.CONTENT_TOO_LARGE, BodySizeLimit.tooLarge());
		}
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"The body must be a JSON object with the documented fields only");
	}

	/**
	 * A body that is not JSON ({@code Content-Type: text/plain}, a form, ...) is the
	 * client's mistake, not a failure of ours: 415 with the types the API reads in
	 * {@code Accept}, nothing logged.
	 * @param ex what Spring MVC rejected
	 * @return the 415 problem
	 */
	@ExceptionHandler(HttpMediaTypeNotSupportedException.class)
	ResponseEntity<ProblemDetail> notJson(HttpMediaTypeNotSupportedException ex) {
		return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE)
			.headers(ex.getHeaders())
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
					"The body must be JSON (Content-Type: application/json)"));
	}

	@ExceptionHandler(MissingServletRequestParameterException.class)
	ProblemDetail missing(MissingServletRequestParameterException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, "'" + ex.getParameterName() + "' is required");
	}

	/**
	 * The client went away (a closed tab, a lost connection) while its reply was being
	 * written, a streamed one most often: normal, and nobody is left to answer. Spring
	 * cancels the reply's stream, which cancels the turn and the model call.
	 * @param ex what writing to the gone client raised
	 */
	@ExceptionHandler(AsyncRequestNotUsableException.class)
	void clientWentAway(AsyncRequestNotUsableException ex) {
		logger.debug("The client went away before its reply was written: {}", ex.getMessage());
	}

	@ExceptionHandler(Exception.class)
	ProblemDetail failed(Exception ex) {
		logger.error("Request failed", ex);
		return ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR, "Sorry, something went wrong.");
	}

}
