package io.mantlehooks.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags {@code mantle.hook} observations; define a bean of this type to replace
 * {@link DefaultHookObservationConvention}.
 */
public interface HookObservationConvention extends ObservationConvention<HookObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof HookObservationContext;
	}

}
