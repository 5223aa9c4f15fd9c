package io.mantlehooks.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookProblem;
import io.mantlehooks.observation.HookObservationConvention;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.discovery.HookMethodProcessor;
import io.mantlehooks.runtime.discovery.HookTimeouts;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.runtime.execution.HookThreadPool;
import io.mantlehooks.runtime.execution.VirtualHookExecutor;
import io.mantlehooks.runtime.guard.CircuitBreakerSettings;
import io.mantlehooks.runtime.guard.HookGuards;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;

/**
 * Auto-configuration for mantle-hooks: discovers and validates hook methods at startup
 * and provides the {@link HookRunner} that runs them. Turned off with
 * {@code mantle.hooks.enabled=false}.
 */
@AutoConfiguration(
		afterName = { "io.github.resilience4j.springboot3.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration",
				"io.github.resilience4j.springboot3.bulkhead.autoconfigure.BulkheadAutoConfiguration",
				"io.github.resilience4j.springboot3.timelimiter.autoconfigure.TimeLimiterAutoConfiguration" })
@ConditionalOnBooleanProperty(name = MantleHooksProperties.CONFIG_PREFIX + ".enabled", matchIfMissing = true)
@EnableConfigurationProperties(MantleHooksProperties.class)
public final class MantleHooksAutoConfiguration {

	/** Name of the executor bean that runs blocking hooks and observers. */
	public static final String HOOK_EXECUTOR_BEAN_NAME = "mantleHookExecutor";

	private static final String THREAD_NAME_PREFIX = "mantle-hook-";

	@Bean
	@ConditionalOnMissingBean
	HookRegistry mantleHookRegistry() {
		return new HookRegistry();
	}

	@Bean
	@ConditionalOnMissingBean
	static TimeLimiterRegistry mantleHooksTimeLimiterRegistry() {
		return TimeLimiterRegistry.ofDefaults();
	}

	@Bean
	@ConditionalOnMissingBean
	static BulkheadRegistry mantleHooksBulkheadRegistry() {
		return BulkheadRegistry.ofDefaults();
	}

	@Bean
	@ConditionalOnMissingBean
	static CircuitBreakerRegistry mantleHooksCircuitBreakerRegistry() {
		return CircuitBreakerRegistry.ofDefaults();
	}

	@Bean
	@ConditionalOnMissingBean
	static HookMethodProcessor mantleHookMethodProcessor(HookRegistry registry, MantleHooksProperties properties,
			TimeLimiterRegistry timeLimiters, BulkheadRegistry bulkheads, CircuitBreakerRegistry circuitBreakers) {
		MantleHooksProperties.Timeouts timeouts = properties.getTimeouts();
		checkLimits(properties);
		HookGuards guards = HookGuards.builder()
			.registries(timeLimiters, bulkheads, circuitBreakers)
			.maxConcurrent(properties.getObservers().getMaxConcurrent(), properties.getModify().getMaxConcurrent())
			.circuitBreakers(breakerDefaults(properties.getCircuitBreaker()), breakerPerHook(properties))
			.build();
		return new HookMethodProcessor(registry,
				new HookTimeouts(timeouts.getObserve(), timeouts.getModify(), timeouts.getPoint(), timeouts.getHook()),
				MantleHooksProperties.CONFIG_PREFIX + ".timeouts", guards);
	}

	private static @Nullable CircuitBreakerSettings breakerDefaults(MantleHooksProperties.CircuitBreaker breaker) {
		if (!breaker.isEnabled()) {
			return null;
		}
		return new CircuitBreakerSettings(breaker.getFailureRateThreshold(), breaker.getMinimumNumberOfCalls(),
				windowType(breaker.getSlidingWindowType()), breaker.getSlidingWindowSize(),
				breaker.getWaitDurationInOpenState());
	}

	private static CircuitBreakerSettings.@Nullable SlidingWindowType windowType(
			MantleHooksProperties.@Nullable SlidingWindowType type) {
		return (type != null) ? CircuitBreakerSettings.SlidingWindowType.valueOf(type.name()) : null;
	}

	private static Map<String, CircuitBreakerSettings> breakerPerHook(MantleHooksProperties properties) {
		CircuitBreakerSettings defaults = breakerDefaults(properties.getCircuitBreaker());
		Map<String, CircuitBreakerSettings> perHook = new LinkedHashMap<>();
		if (defaults != null) {
			properties.getCircuitBreaker()
				.getHook()
				.forEach((hook, settings) -> perHook.put(hook,
						defaults.with(settings.getFailureRateThreshold(), settings.getMinimumNumberOfCalls(),
								windowType(settings.getSlidingWindowType()), settings.getSlidingWindowSize(),
								settings.getWaitDurationInOpenState())));
		}
		return perHook;
	}

	@Bean
	@ConditionalOnMissingBean
	HookResponses mantleHookResponses(MantleHooksProperties properties, ObjectProvider<MessageSource> messageSource) {
		return new HookResponses(properties.getResponses(), messageSource.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	HookRunner mantleHookRunner(HookRegistry registry, @Qualifier(HOOK_EXECUTOR_BEAN_NAME) AsyncTaskExecutor executor,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<HookObservationConvention> convention, MantleHooksProperties properties) {
		return new HookRunner(registry, executor, observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP),
				convention.getIfUnique());
	}

	private static void checkLimits(MantleHooksProperties properties) {
		List<HookProblem> problems = new ArrayList<>();
		if (properties.getObservers().getMaxConcurrent() < 1) {
			problems.add(positive("observers.max-concurrent", properties.getObservers().getMaxConcurrent()));
		}
		if (properties.getModify().getMaxConcurrent() < 1) {
			problems.add(positive("modify.max-concurrent", properties.getModify().getMaxConcurrent()));
		}
		if (properties.getMaxIterations() < 1) {
			problems.add(positive("max-iterations", properties.getMaxIterations()));
		}
		if (properties.getExecutor().getPoolSize() < 1) {
			problems.add(positive("executor.pool-size", properties.getExecutor().getPoolSize()));
		}
		if (!problems.isEmpty()) {
			throw new HookDefinitionException(problems);
		}
	}

	private static HookProblem positive(String key, int value) {
		String property = MantleHooksProperties.CONFIG_PREFIX + "." + key;
		return new HookProblem("Property '" + property + "' is " + value + ", but it must be at least 1.",
				"Set '" + property + "' to a positive number, or remove it to use the default.");
	}

	/**
	 * The hook executor, on the kind of threads Spring Boot's
	 * {@code spring.threads.virtual.enabled} chooses, as Boot's own task executor is: a
	 * pool of {@code mantle.hooks.executor.pool-size} threads with a queue, whose threads
	 * are virtual ({@link VirtualHookExecutor}) or platform threads
	 * ({@link HookThreadPool}). The runner restores each turn's context on these threads
	 * itself.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(name = HOOK_EXECUTOR_BEAN_NAME)
	static class HookExecutorConfiguration {

		@Bean(name = HOOK_EXECUTOR_BEAN_NAME)
		@ConditionalOnThreading(Threading.VIRTUAL)
		@ConditionalOnBooleanProperty(name = MantleHooksProperties.CONFIG_PREFIX + ".executor.virtual-threads",
				matchIfMissing = true)
		VirtualHookExecutor mantleVirtualHookExecutor(MantleHooksProperties properties) {
			checkLimits(properties);
			return new VirtualHookExecutor(THREAD_NAME_PREFIX, properties.getExecutor().getPoolSize());
		}

		@Bean(name = HOOK_EXECUTOR_BEAN_NAME)
		@ConditionalOnMissingBean(name = HOOK_EXECUTOR_BEAN_NAME)
		HookThreadPool mantleHookExecutor(MantleHooksProperties properties) {
			checkLimits(properties);
			return new HookThreadPool(THREAD_NAME_PREFIX, properties.getExecutor().getPoolSize());
		}

	}

}
