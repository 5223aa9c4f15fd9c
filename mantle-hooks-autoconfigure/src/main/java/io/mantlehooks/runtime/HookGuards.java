package io.mantlehooks.runtime;

import java.time.Duration;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;

import org.springframework.util.Assert;

/**
 * Makes the Resilience4j guards of each hook: its {@link TimeLimiter} (the timeout) and
 * its own {@link Bulkhead} (how many invocations of that hook may be in flight, running
 * or abandoned after a timeout), so a hung hook only ever loses its own invocations.
 */
public final class HookGuards {

	/** The default of both lanes' per-hook limits. */
	public static final int DEFAULT_MAX_CONCURRENT = 64;

	private final int observeMaxConcurrent;

	private final int modifyMaxConcurrent;

	/**
	 * Create the factory.
	 * @param observeMaxConcurrent invocations in flight per observe hook; beyond it one
	 * is dropped
	 * @param modifyMaxConcurrent invocations in flight per modify hook; beyond it the
	 * point's fail policy applies at once
	 */
	public HookGuards(int observeMaxConcurrent, int modifyMaxConcurrent) {
		Assert.isTrue(observeMaxConcurrent > 0, "'observeMaxConcurrent' must be positive");
		Assert.isTrue(modifyMaxConcurrent > 0, "'modifyMaxConcurrent' must be positive");
		this.observeMaxConcurrent = observeMaxConcurrent;
		this.modifyMaxConcurrent = modifyMaxConcurrent;
	}

	/**
	 * Return the factory with the default limits.
	 * @return the default guards
	 */
	public static HookGuards defaults() {
		return new HookGuards(DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_CONCURRENT);
	}

	TimeLimiter timeLimiter(String hookName, Duration timeout) {
		return TimeLimiter.of(hookName, TimeLimiterConfig.custom().timeoutDuration(timeout).build());
	}

	Bulkhead bulkhead(String hookName, HookLane lane) {
		int limit = (lane == HookLane.OBSERVE) ? this.observeMaxConcurrent : this.modifyMaxConcurrent;
		return Bulkhead.of(hookName,
				BulkheadConfig.custom().maxConcurrentCalls(limit).maxWaitDuration(Duration.ZERO).build());
	}

}
