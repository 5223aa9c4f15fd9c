package io.mantlehooks.runtime;

import java.util.Locale;

/**
 * Where a hook's effective timeout came from, in order of precedence.
 */
public enum TimeoutSource {

	/** {@code mantle.hooks.timeouts.hook.<bean>.<method>}. */
	HOOK,

	/** The annotation's {@code timeoutMs}. */
	ANNOTATION,

	/** {@code mantle.hooks.timeouts.point.<point>} (modify hooks only). */
	POINT,

	/** The lane default, {@code mantle.hooks.timeouts.observe} or {@code .modify}. */
	LANE;

	/**
	 * Return the lower-case name shown by the actuator endpoint.
	 * @return the name
	 */
	public String value() {
		return name().toLowerCase(Locale.ROOT);
	}

}
