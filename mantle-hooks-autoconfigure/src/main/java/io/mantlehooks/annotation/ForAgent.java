package io.mantlehooks.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Scopes hooks to agents: on a hook method, that hook runs only in turns of the named
 * agents; on a hook bean class, every hook method of the class does (a method's own
 * {@code @ForAgent} wins over its class's). Hooks without it belong to every agent.
 * <p>
 * An agent is a {@code ChatClient} that names itself with
 * {@link io.mantlehooks.MantleHooks#agent(String)}; a client that names none is the
 * {@linkplain io.mantlehooks.MantleHooks#DEFAULT_AGENT default agent}. At most one modify
 * hook per point runs in an agent, counting the modify hooks that belong to every agent.
 * <pre class="code">
 * &#64;Component
 * &#64;ForAgent("support")
 * class SupportGuards {
 *
 *     &#64;ModifyModelRequest
 *     ModelRequestPayload redact(ModelRequestPayload request) { ... }
 *
 * }
 * </pre>
 *
 * @see io.mantlehooks.MantleHooks#agent(String)
 */
@Target({ ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ForAgent {

	/**
	 * The agents whose turns the hooks run in: names as the clients give them to
	 * {@link io.mantlehooks.MantleHooks#agent(String)}. At least one, none blank.
	 * @return the agent names
	 */
	String[] value();

}
