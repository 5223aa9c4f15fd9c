package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;

/**
 * The circuit breaker of a modify hook: a count-based sliding window of its last
 * invocations; when at least {@code minimumNumberOfCalls} were recorded and the share of
 * failures (crash, timeout, invalid return) reaches {@code failureRateThreshold} percent,
 * the breaker opens and the point's fail policy applies at once, without calling the
 * hook, for {@code waitDurationInOpenState}; then a few probe calls decide whether it
 * closes again (Resilience4j's half-open state).
 *
 * @param failureRateThreshold the failure rate, in percent, that opens the breaker
 * @param minimumNumberOfCalls the calls recorded before the rate is computed
 * @param slidingWindowSize the number of recent calls the rate is computed over
 * @param waitDurationInOpenState how long the breaker stays open before probing
 */
public record CircuitBreakerSettings(float failureRateThreshold, int minimumNumberOfCalls, int slidingWindowSize,
		Duration waitDurationInOpenState) {

	/** The defaults: 50 %, 20 calls, a window of 50, 30 seconds open. */
	public static final CircuitBreakerSettings DEFAULTS = new CircuitBreakerSettings(50, 20, 50,
			Duration.ofSeconds(30));

	/**
	 * Return these settings with the given values where they are not {@code null}.
	 * @param failureRateThreshold the failure rate, or {@code null} to keep this one
	 * @param minimumNumberOfCalls the minimum calls, or {@code null} to keep
	 * @param slidingWindowSize the window, or {@code null} to keep
	 * @param waitDurationInOpenState the open duration, or {@code null} to keep
	 * @return the merged settings
	 */
	public CircuitBreakerSettings with(@Nullable Float failureRateThreshold, @Nullable Integer minimumNumberOfCalls,
			@Nullable Integer slidingWindowSize, @Nullable Duration waitDurationInOpenState) {
		return new CircuitBreakerSettings(
				(failureRateThreshold != null) ? failureRateThreshold : this.failureRateThreshold,
				(minimumNumberOfCalls != null) ? minimumNumberOfCalls : this.minimumNumberOfCalls,
				(slidingWindowSize != null) ? slidingWindowSize : this.slidingWindowSize,
				(waitDurationInOpenState != null) ? waitDurationInOpenState : this.waitDurationInOpenState);
	}

	/**
	 * Check the values.
	 * @param prefix the configuration prefix they were bound from, for messages
	 * @return the problems, empty when the settings are usable
	 */
	List<HookProblem> validate(String prefix) {
		List<HookProblem> problems = new ArrayList<>();
		if (!(this.failureRateThreshold > 0 && this.failureRateThreshold <= 100)) {
			problems.add(problem(prefix + ".failure-rate-threshold", String.valueOf(this.failureRateThreshold),
					"a percentage above 0 and at most 100", "50"));
		}
		if (this.minimumNumberOfCalls < 1) {
			problems.add(problem(prefix + ".minimum-number-of-calls", String.valueOf(this.minimumNumberOfCalls),
					"at least 1", "20"));
		}
		if (this.slidingWindowSize < 1) {
			problems.add(problem(prefix + ".sliding-window-size", String.valueOf(this.slidingWindowSize), "at least 1",
					"50"));
		}
		if (this.waitDurationInOpenState == null || this.waitDurationInOpenState.isNegative()
				|| this.waitDurationInOpenState.isZero()) {
			problems.add(problem(prefix + ".wait-duration-in-open-state", String.valueOf(this.waitDurationInOpenState),
					"a positive duration", "30s"));
		}
		return problems;
	}

	private static HookProblem problem(String property, String value, String expected, String example) {
		return new HookProblem("Property '" + property + "' is " + value + ", but it must be " + expected + ".",
				"Set '" + property + "' to " + expected + " (for example " + example + "), or remove it.");
	}

	CircuitBreakerConfig toConfig() {
		return CircuitBreakerConfig.custom()
			.failureRateThreshold(this.failureRateThreshold)
			.minimumNumberOfCalls(this.minimumNumberOfCalls)
			.slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
			.slidingWindowSize(this.slidingWindowSize)
			.waitDurationInOpenState(this.waitDurationInOpenState)
			// slow calls are already timeouts, counted as failures
			.slowCallRateThreshold(100)
			.build();
	}

}
