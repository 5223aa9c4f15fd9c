package io.mantlehooks.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the {@code mantlehooks} endpoint exists: with Actuator, once exposed.
 */
class MantleHooksEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(MantleHooksAutoConfiguration.class, MantleHooksEndpointAutoConfiguration.class));

	@Test
	void endpointIsNotExposedByDefault() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(MantleHooksEndpoint.class));
	}

	@Test
	void endpointExistsOnceExposedOverTheWeb() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=mantlehooks")
			.run((context) -> {
				assertThat(context).hasSingleBean(MantleHooksEndpoint.class);
				MantleHooksEndpoint.HooksDescriptor hooks = context.getBean(MantleHooksEndpoint.class).hooks();
				assertThat(hooks.points()).hasSize(10).containsKeys("turn-started", "outgoing-text");
				assertThat(hooks.limits().observersMaxConcurrent()).isEqualTo(64);
			});
	}

	@Test
	void endpointCanBeSwitchedOff() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=mantlehooks",
					"management.endpoint.mantlehooks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(MantleHooksEndpoint.class));
	}

	@Test
	void noActuatorNoEndpoint() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=mantlehooks")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MantleHooksEndpoint.class));
	}

}
