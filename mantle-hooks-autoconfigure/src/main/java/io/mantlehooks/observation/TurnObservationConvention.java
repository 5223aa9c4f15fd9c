package io.mantlehooks.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags {@code mantle.turn} observations; define a bean of this type to replace
 * {@link DefaultTurnObservationConvention}.
 */
public interface TurnObservationConvention extends ObservationConvention<TurnObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof TurnObservationContext;
	}

}
