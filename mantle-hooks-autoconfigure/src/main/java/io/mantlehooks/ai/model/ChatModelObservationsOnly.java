package io.mantlehooks.ai.model;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;

import org.springframework.ai.chat.observation.ChatModelObservationContext;

/**
 * Keeps only Spring AI's chat-model observations in a registry where nothing else
 * listens. The unhooked-call detector needs those to see calls to models it cannot proxy,
 * and its handler makes the registry active; without this predicate every other
 * observation of every turn ({@code ChatClient}, each advisor, {@code mantle.turn},
 * {@code mantle.hook}) would then be created and started for nobody. Installed only when
 * the registry had no handler of its own before the detector's (see
 * {@link UnhookedCallCoverageCheck}).
 */
final class ChatModelObservationsOnly implements ObservationPredicate {

	@Override
	public boolean test(String name, Observation.Context context) {
		return context instanceof ChatModelObservationContext;
	}

}
