package io.mantlehooks.autoconfigure;

import io.mantlehooks.console.ConsolePage;
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
import org.springframework.web.servlet.function.support.HandlerFunctionAdapter;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;

/**
 * The turn console page on the management server, when Actuator has a port of its own
 * ({@code management.server.port}): the page calls the endpoint on its own origin, so it
 * is served where the endpoint is. The management context's dispatcher finds handler
 * mappings and adapters among its own beans, so both are declared here.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty(MantleHooksProperties.CONFIG_PREFIX + ".console.enabled")
@ConditionalOnBean(TurnConsole.class)
public final class MantleHooksConsoleManagementContextConfiguration {

	@Bean
	RouterFunctionMapping mantleConsolePageMapping(MantleHooksProperties properties, Environment environment) {
		RouterFunctionMapping mapping = new RouterFunctionMapping(
				MantleHooksConsoleAutoConfiguration.consolePage(properties, environment));
		// before the endpoint mappings, which answer only their own paths anyway
		mapping.setOrder(-1);
		return mapping;
	}

	@Bean
	HandlerFunctionAdapter mantleConsolePageHandlerAdapter() {
		return new HandlerFunctionAdapter();
	}

}
