package io.mantlehooks.runtime;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine builds no observation in a registry that keeps only chat-model observations,
 * and still does in every other registry with a handler.
 */
class ChatModelOnlyRegistriesTests {

	@Test
	void theNoOpRegistryObservesNothing() {
		assertThat(ChatModelOnlyRegistries.observesEngine(ObservationRegistry.NOOP)).isFalse();
		assertThat(ChatModelOnlyRegistries.observesEngine(ObservationRegistry.create())).isFalse();
	}

	@Test
	void aRegistryLimitedToChatModelsObservesNoEngineWorkWhileAnotherStillDoes() {
		ObservationRegistry limited = listened();
		ObservationRegistry other = listened();
		assertThat(ChatModelOnlyRegistries.observesEngine(limited)).isTrue();
		ChatModelOnlyRegistries.add(limited);
		ChatModelOnlyRegistries.add(limited);
		assertThat(ChatModelOnlyRegistries.observesEngine(limited)).isFalse();
		assertThat(ChatModelOnlyRegistries.observesEngine(other)).isTrue();
	}

	@Test
	void aKeptCheckSeesARegistryLimitedAfterItFirstAnsweredAndHandlersAddedLater() {
		ObservationRegistry registry = ObservationRegistry.create();
		ChatModelOnlyRegistries.Check check = ChatModelOnlyRegistries.check(registry);
		assertThat(check.observesEngine()).isFalse();
		listen(registry);
		assertThat(check.observesEngine()).isTrue();
		ChatModelOnlyRegistries.add(listened());
		assertThat(check.observesEngine()).isTrue();
		ChatModelOnlyRegistries.add(registry);
		assertThat(check.observesEngine()).isFalse();
	}

	private static ObservationRegistry listened() {
		ObservationRegistry registry = ObservationRegistry.create();
		listen(registry);
		return registry;
	}

	private static void listen(ObservationRegistry registry) {
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
	}

}
