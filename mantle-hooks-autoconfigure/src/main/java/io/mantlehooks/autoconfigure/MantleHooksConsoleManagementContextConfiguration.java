package io.mantlehooks.autoconfigure;

import io.mantlehooks.console.TurnConsole;

import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The turn console page on the management server, when Actuator has a port of its own
 * ({@code management.server.port}): the page calls the endpoint on its own origin, so it
 * is served where the endpoint is. The management context runs Spring MVC of its own,
 * which picks up this router function.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty(MantleHooksProperties.CONFIG_PREFIX + ".console.enabled")
@ConditionalOnBean(TurnConsole.class)
public final class MantleHooksConsoleManagementContextConfiguration {

	@Bean
	RouterFunction<ServerResponse> mantleConsolePage(MantleHooksProperties properties, Environment environment) {
		return MantleHooksConsoleAutoConfiguration.consolePage(properties, environment);
	}

}
