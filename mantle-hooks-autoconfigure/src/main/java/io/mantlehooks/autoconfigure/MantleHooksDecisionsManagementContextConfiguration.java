package io.mantlehooks.autoconfigure;

import java.util.Optional;

import jakarta.servlet.Filter;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@link DecisionRequestFilter} on the server that serves Actuator (the
 * application's, or the management server when it has a port of its own), so that a
 * decision's {@code approve} is a JSON boolean, not text Actuator would convert.
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(Filter.class)
public final class MantleHooksDecisionsManagementContextConfiguration {

	@Bean
	DecisionRequestFilter mantleDecisionRequestFilter(ObjectProvider<MantleHooksEndpoint> endpoint,
			ObjectProvider<PathMappedEndpoints> paths) {
		// looked up on the first request (the endpoint and its path exist once the
		// contexts are up) and kept, also when there is none: a POST elsewhere costs
		// no look-up
		SingletonSupplier<Optional<String>> path = SingletonSupplier
			.of(() -> Optional.ofNullable(approvalsPath(endpoint, paths)));
		return new DecisionRequestFilter(() -> path.obtain().orElse(null));
	}

	private static @Nullable String approvalsPath(ObjectProvider<MantleHooksEndpoint> endpoint,
			ObjectProvider<PathMappedEndpoints> paths) {
		MantleHooksEndpoint decisions = endpoint.getIfAvailable();
		PathMappedEndpoints mapped = paths.getIfAvailable();
		String path = (mapped != null) ? mapped.getPath(EndpointId.of(MantleHooksEndpoint.ID)) : null;
		return (decisions != null && decisions.decides() && path != null) ? path + "/approvals/" : null;
	}

}
