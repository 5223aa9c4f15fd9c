package io.mantlehooks.autoconfigure;

import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code mantlehooks} actuator endpoint, when Spring Boot Actuator is present and the
 * endpoint is available (enabled and exposed). It learns its access from Boot's
 * {@link EndpointAccessResolver}, as Boot's own discovery does, so the console can say
 * that decisions are off while the access is read-only.
 */
@AutoConfiguration(after = { MantleHooksAutoConfiguration.class, MantleHooksConsoleAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(HookRunner.class)
public final class MantleHooksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	MantleHooksEndpoint mantleHooksEndpoint(HookRegistry registry, HookRunner runner, MantleHooksProperties properties,
			ObjectProvider<TurnConsole> console, ObjectProvider<EndpointAccessResolver> accessResolver) {
		EndpointAccessResolver resolver = accessResolver.getIfAvailable();
		// no resolver: nothing says decisions are allowed, so they are not
		Access access = (resolver != null) ? resolver.accessFor(EndpointId.of(MantleHooksEndpoint.ID), Access.READ_ONLY)
				: Access.READ_ONLY;
		return new MantleHooksEndpoint(registry, runner, properties, console.getIfAvailable(), access);
	}

}
