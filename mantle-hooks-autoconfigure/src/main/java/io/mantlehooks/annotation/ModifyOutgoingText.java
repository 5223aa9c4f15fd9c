package io.mantlehooks.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks the modify hook for the outgoing text point.
 * <p>
 * The method takes one {@link io.mantlehooks.OutgoingTextPayload} and returns the same
 * payload type, {@code CompletionStage} of it or {@code Mono} of it. At most one modify
 * hook per point; it is awaited with its timeout. May throw
 * {@link io.mantlehooks.HookRejection}; a crash, timeout or invalid return sends the
 * original text (fail open).
 *
 * @see io.mantlehooks.HookPoint#OUTGOING_TEXT
 * @see io.mantlehooks.OutgoingTextPayload
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ModifyOutgoingText {

	/**
	 * Timeout for one invocation of this hook in milliseconds, or {@code -1} to use the
	 * configured default ({@code mantle.hooks.timeouts.*}). A per-hook entry under
	 * {@code mantle.hooks.timeouts.hook} still wins over this value.
	 * @return the timeout in milliseconds, or {@code -1}
	 */
	long timeoutMs() default -1;

	/**
	 * What the hook sees of a streamed reply: the whole reply (the default), or each
	 * sentence as it completes, so the reply keeps streaming.
	 * @return the stream mode
	 */
	StreamMode stream() default StreamMode.WHOLE;

}
