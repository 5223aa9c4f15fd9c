package io.mantlehooks.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks an observe hook for the knowledge results point.
 * <p>
 * The method takes one {@link io.mantlehooks.KnowledgeResultsPayload} and returns
 * {@code void}, {@code CompletionStage<Void>} or {@code Mono<Void>}. Observers run
 * concurrently on the hook executor and are never awaited by the turn; what they throw,
 * and any control signal, is logged and discarded.
 *
 * @see io.mantlehooks.HookPoint#KNOWLEDGE_RESULTS
 * @see io.mantlehooks.KnowledgeResultsPayload
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface OnKnowledgeResults {

	/**
	 * Timeout for one invocation of this hook in milliseconds, or {@code -1} to use the
	 * configured default ({@code mantle.hooks.timeouts.*}). A per-hook entry under
	 * {@code mantle.hooks.timeouts.hook} still wins over this value.
	 * @return the timeout in milliseconds, or {@code -1}
	 */
	long timeoutMs() default -1;

}
