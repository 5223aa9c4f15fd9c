package io.mantlehooks.autoconfigure;

import java.time.Clock;

import io.mantlehooks.approval.ApprovalResumer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.console.ConsolePage;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.console.TurnRecorder;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.transcript.TranscriptStore;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The turn console, when {@code mantle.hooks.console.enabled=true}: a recorder of recent
 * turns (an observation handler, so it needs an {@code ObservationRegistry}, which Spring
 * Boot Actuator provides), its data at {@code /actuator/mantlehooks/turns}, and in a
 * servlet web application the console page.
 */
@AutoConfiguration(after = { MantleHooksAutoConfiguration.class, MantleHooksStoresAutoConfiguration.class })
@ConditionalOnBean(HookRunner.class)
@ConditionalOnBooleanProperty(MantleHooksProperties.CONFIG_PREFIX + ".console.enabled")
public final class MantleHooksConsoleAutoConfiguration {

	private static final Log logger = LogFactory.getLog(MantleHooksConsoleAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	TurnRecorder mantleTurnRecorder(MantleHooksProperties properties) {
		return new TurnRecorder(properties.getConsole().getMaxTurns(), properties.getConsole().isIncludeText(),
				Clock.systemUTC());
	}

	/**
	 * The recorder is an observation handler: without a registry it stays empty, so say
	 * so once the context is up (asking for the registry earlier would be a cycle: the
	 * registry collects the handlers).
	 */
	@Bean
	static SmartInitializingSingleton mantleTurnRecorderCheck(ObjectProvider<ObservationRegistry> observationRegistry) {
		return () -> {
			ObservationRegistry registry = observationRegistry.getIfAvailable();
			if (registry == null || registry.isNoop()) {
				logger.warn("mantle.hooks.console.enabled is true, but there is no ObservationRegistry, so no turn is "
						+ "recorded: add spring-boot-starter-actuator");
			}
		};
	}

	@Bean
	@ConditionalOnMissingBean
	TurnConsole mantleTurnConsole(TurnRecorder recorder, HookRegistry registry, ObjectProvider<ApprovalStore> approvals,
			ObjectProvider<TranscriptStore> transcript, ObjectProvider<ApprovalResumer> resumer) {
		return new TurnConsole(recorder, approvals.getIfUnique(), transcript.getIfUnique(), resumer.getIfUnique(),
				registry::agents, Clock.systemUTC());
	}

	static RouterFunction<ServerResponse> consolePage(MantleHooksProperties properties, Environment environment) {
		String actuator = environment.getProperty("management.endpoints.web.base-path", "/actuator");
		return ConsolePage.routes(properties.getConsole().getPath(), actuator + "/mantlehooks");
	}

	/**
	 * The page, in servlet web applications, with the application unless Actuator has a
	 * port of its own.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(RouterFunction.class)
	@Conditional(OnConsoleServerCondition.class)
	static class ConsolePageConfiguration {

		@Bean
		RouterFunction<ServerResponse> mantleConsolePage(MantleHooksProperties properties, Environment environment) {
			return consolePage(properties, environment);
		}

	}

}
