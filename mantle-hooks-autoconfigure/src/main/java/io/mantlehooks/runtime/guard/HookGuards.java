package io.mantlehooks.runtime.guard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookProblem;
import io.mantlehooks.runtime.ConfigurationKeys;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.HookMethod;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Makes the Resilience4j guards of each hook, in Resilience4j registries so that
 * {@code resilience4j-micrometer} and Resilience4j's own endpoints can bind them: its
 * {@link TimeLimiter} (the timeout), its own {@link Bulkhead} (how many invocations of
 * that hook may be abandoned after their timeout and still run, so a hung hook only ever
 * loses its own invocations; healthy concurrency is never limited) and, for a modify
 * hook, its {@link CircuitBreaker}. Each instance is named
 * {@code beanName.methodName@point}.
 */
public final class HookGuards {

	/** The default of both lanes' per-hook limits. */
	public static final int DEFAULT_MAX_CONCURRENT = 64;

	private final TimeLimiterRegistry timeLimiters;

	private final BulkheadRegistry bulkheads;

	private final CircuitBreakerRegistry circuitBreakers;

	private final int observeMaxConcurrent;

	private final int modifyMaxConcurrent;

	private final @Nullable CircuitBreakerSettings breakerDefaults;

	private final Map<String, CircuitBreakerSettings> breakerPerHook;

	private final Map<String, String> breakerKeys;

	private final Map<Duration, TimeLimiterConfig> timeLimiterConfigs = new ConcurrentHashMap<>();

	private final BulkheadConfig observeBulkhead;

	private final BulkheadConfig modifyBulkhead;

	/** Made on first use: the settings are validated after the guards are made. */
	private volatile @Nullable CircuitBreakerConfig breakerDefaultsConfig;

	private HookGuards(Builder builder) {
		this.timeLimiters = builder.timeLimiters;
		this.bulkheads = builder.bulkheads;
		this.circuitBreakers = builder.circuitBreakers;
		this.observeMaxConcurrent = builder.observeMaxConcurrent;
		this.modifyMaxConcurrent = builder.modifyMaxConcurrent;
		this.breakerDefaults = builder.breakerDefaults;
		this.observeBulkhead = bulkheadConfig(this.observeMaxConcurrent);
		this.modifyBulkhead = bulkheadConfig(this.modifyMaxConcurrent);
		this.breakerPerHook = new LinkedHashMap<>();
		this.breakerKeys = new LinkedHashMap<>();
		builder.breakerPerHook.forEach((key, settings) -> {
			this.breakerPerHook.put(ConfigurationKeys.normalize(key), settings);
			this.breakerKeys.put(ConfigurationKeys.normalize(key), key);
		});
	}

	/**
	 * Create the guards with in-memory registries.
	 * @param observeMaxConcurrent abandoned invocations (past their timeout, still
	 * running) per observe hook; at it further ones are dropped
	 * @param modifyMaxConcurrent abandoned invocations per modify hook; at it the point's
	 * fail policy applies at once
	 */
	public HookGuards(int observeMaxConcurrent, int modifyMaxConcurrent) {
		this(builder().maxConcurrent(observeMaxConcurrent, modifyMaxConcurrent));
	}

	/**
	 * Return guards with the default limits and circuit breakers.
	 * @return the default guards
	 */
	public static HookGuards defaults() {
		return builder().build();
	}

	/**
	 * Start building guards.
	 * @return a builder with the defaults: in-memory registries, 64 per hook, circuit
	 * breakers with {@link CircuitBreakerSettings#DEFAULTS}
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Check the circuit-breaker settings.
	 * @param prefix the configuration prefix of the circuit-breaker keys
	 * @return the problems found
	 */
	public List<HookProblem> validate(String prefix) {
		List<HookProblem> problems = new ArrayList<>();
		if (this.breakerDefaults != null) {
			problems.addAll(this.breakerDefaults.validate(prefix));
		}
		this.breakerPerHook.forEach((key, settings) -> problems
			.addAll(settings.validate(prefix + ".hook[" + this.breakerKeys.get(key) + "]")));
		return problems;
	}

	/**
	 * Return the per-hook circuit-breaker keys that name none of the given hooks.
	 */
	public List<String> unmatchedBreakerKeys(Set<String> hookNames) {
		if (this.breakerKeys.isEmpty()) {
			return List.of();
		}
		Set<String> known = hookNames.stream().map(ConfigurationKeys::normalize).collect(Collectors.toSet());
		return this.breakerKeys.entrySet()
			.stream()
			.filter((entry) -> !known.contains(entry.getKey()))
			.map(Map.Entry::getValue)
			.toList();
	}

	TimeLimiter timeLimiter(String instanceName, Duration timeout) {
		// one config per timeout, not per hook: a thousand hooks share a handful
		TimeLimiterConfig config = this.timeLimiterConfigs.get(timeout);
		if (config == null) {
			config = TimeLimiterConfig.custom().timeoutDuration(timeout).cancelRunningFuture(true).build();
			TimeLimiterConfig raced = this.timeLimiterConfigs.putIfAbsent(timeout, config);
			config = (raced != null) ? raced : config;
		}
		return this.timeLimiters.timeLimiter(instanceName, config);
	}

	Bulkhead bulkhead(String instanceName, HookLane lane) {
		return this.bulkheads.bulkhead(instanceName,
				(lane == HookLane.OBSERVE) ? this.observeBulkhead : this.modifyBulkhead);
	}

	/**
	 * Return the circuit breaker of a modify hook, {@code null} for observers and when
	 * circuit breakers are disabled.
	 */
	@Nullable CircuitBreaker circuitBreaker(String instanceName, String hookName, HookLane lane) {
		CircuitBreakerSettings settings = breakerSettings(hookName, lane);
		if (settings == null) {
			return null;
		}
		// the defaults' config is made once; per-hook settings are few
		CircuitBreakerConfig config;
		if (settings == this.breakerDefaults) {
			config = this.breakerDefaultsConfig;
			if (config == null) {
				config = settings.toConfig();
				this.breakerDefaultsConfig = config;
			}
		}
		else {
			config = settings.toConfig();
		}
		return this.circuitBreakers.circuitBreaker(instanceName, config);
	}

	private static BulkheadConfig bulkheadConfig(int limit) {
		return BulkheadConfig.custom().maxConcurrentCalls(limit).maxWaitDuration(Duration.ZERO).build();
	}

	/**
	 * Return the guards of one hook, made in the registries under
	 * {@code beanName.methodName@point}.
	 * @param hookName the hook's name, {@code beanName.methodName}
	 * @param point the point it serves
	 * @param lane its lane
	 * @param timeout its timeout
	 * @return its time limiter (modify hooks), bulkhead and circuit breaker (modify
	 * hooks, when enabled)
	 */
	public HookMethod.Guards forHook(String hookName, HookPoint point, HookLane lane, Duration timeout) {
		String instanceName = hookName + "@" + point.configName();
		return new HookMethod.Guards((lane == HookLane.MODIFY) ? timeLimiter(instanceName, timeout) : null,
				bulkhead(instanceName, lane), circuitBreaker(instanceName, hookName, lane));
	}

	private @Nullable CircuitBreakerSettings breakerSettings(String hookName, HookLane lane) {
		if (lane != HookLane.MODIFY || this.breakerDefaults == null) {
			return null;
		}
		return this.breakerPerHook.isEmpty() ? this.breakerDefaults
				: this.breakerPerHook.getOrDefault(ConfigurationKeys.normalize(hookName), this.breakerDefaults);
	}

	/**
	 * Builds {@link HookGuards}.
	 */
	public static final class Builder {

		private TimeLimiterRegistry timeLimiters = TimeLimiterRegistry.ofDefaults();

		private BulkheadRegistry bulkheads = BulkheadRegistry.ofDefaults();

		private CircuitBreakerRegistry circuitBreakers = CircuitBreakerRegistry.ofDefaults();

		private int observeMaxConcurrent = DEFAULT_MAX_CONCURRENT;

		private int modifyMaxConcurrent = DEFAULT_MAX_CONCURRENT;

		private @Nullable CircuitBreakerSettings breakerDefaults = CircuitBreakerSettings.DEFAULTS;

		private final Map<String, CircuitBreakerSettings> breakerPerHook = new LinkedHashMap<>();

		private Builder() {
		}

		/**
		 * Use these registries for the hooks' guards.
		 * @param timeLimiters the time limiters' registry
		 * @param bulkheads the bulkheads' registry
		 * @param circuitBreakers the circuit breakers' registry
		 * @return this builder
		 */
		public Builder registries(TimeLimiterRegistry timeLimiters, BulkheadRegistry bulkheads,
				CircuitBreakerRegistry circuitBreakers) {
			Assert.notNull(timeLimiters, "'timeLimiters' must not be null");
			Assert.notNull(bulkheads, "'bulkheads' must not be null");
			Assert.notNull(circuitBreakers, "'circuitBreakers' must not be null");
			this.timeLimiters = timeLimiters;
			this.bulkheads = bulkheads;
			this.circuitBreakers = circuitBreakers;
			return this;
		}

		/**
		 * Set the per-hook limits of abandoned invocations (past their timeout, still
		 * running); healthy invocations are never limited.
		 * @param observe per observe hook; at it further invocations are dropped
		 * @param modify per modify hook; at it the point's fail policy applies
		 * @return this builder
		 */
		public Builder maxConcurrent(int observe, int modify) {
			Assert.isTrue(observe > 0, "'observe' must be positive");
			Assert.isTrue(modify > 0, "'modify' must be positive");
			this.observeMaxConcurrent = observe;
			this.modifyMaxConcurrent = modify;
			return this;
		}

		/**
		 * Set the circuit breakers of modify hooks.
		 * @param defaults the settings of every modify hook, {@code null} to disable
		 * circuit breakers
		 * @param perHook settings per hook, keyed {@code beanName.methodName}
		 * @return this builder
		 */
		public Builder circuitBreakers(@Nullable CircuitBreakerSettings defaults,
				Map<String, CircuitBreakerSettings> perHook) {
			this.breakerDefaults = defaults;
			this.breakerPerHook.clear();
			this.breakerPerHook.putAll(perHook);
			return this;
		}

		/**
		 * Build the guards.
		 * @return the guards
		 */
		public HookGuards build() {
			return new HookGuards(this);
		}

	}

}
