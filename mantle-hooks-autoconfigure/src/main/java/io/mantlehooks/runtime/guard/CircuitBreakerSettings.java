package io.mantlehooks.runtime.guard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.mantlehooks.HookProblem;
import org.jspecify.annotations.Nullable;

/**
 * The circuit breaker of a modify hook: a sliding window of its recent invocations; when
 * at least {@code minimumNumberOfCalls} were recorded and the share of failures (crash,
 * timeout, invalid return) reaches {@code failureRateThreshold} percent, the breaker
 * opens and the point's fail policy applies at once, without calling the hook, for
 * {@code waitDurationInOpenState}; then a few probe calls decide whether it closes again
 * (Resilience4j's half-open state).
 * <p>
 * The defaults are chosen for a guardrail, where an open breaker means error replies (a
 * fail-closed point) or a skipped check (a fail-open point) for every turn: the window is
 * a minute of calls, not a count, so a few seconds of failures (a stall that timed out
 * every hook running at that moment) are a small share of a busy hook's window and open
 * nothing, while a dependency that keeps failing opens it; and an open breaker probes
 * again after ten seconds.
 *
 * @param failureRateThreshold the failure rate, in percent, that opens the breaker
 * @param minimumNumberOfCalls the calls recorded before the rate is computed
 * @param slidingWindowType whether the window is a time span or a number of calls
 * @param slidingWindowSize the window: seconds when time-based, calls when count-based
 * @param waitDurationInOpenState how long the breaker stays open before probing
 */
public record CircuitBreakerSettings(float failureRateThreshold, int minimumNumberOfCalls,
		SlidingWindowType slidingWindowType, int slidingWindowSize, Duration waitDurationInOpenState) {

	/**
	 * The defaults: 50 %, 20 calls, a window of the last 60 seconds, 10 seconds open.
	 */
	public static final CircuitBreakerSettings DEFAULTS = new CircuitBreakerSettings(50, 20,
			SlidingWindowType.TIME_BASED, 60, Duration.ofSeconds(10));

	/**
	 * Return these settings with the given values where they are not {@code null}.
	 * @param failureRateThreshold the failure rate, or {@code null} to keep this one
	 * @param minimumNumberOfCalls the minimum calls, or {@code null} to keep
	 * @param slidingWindowType the kind of window, or {@code null} to keep
	 * @param slidingWindowSize the window, or {@code null} to keep
	 * @param waitDurationInOpenState the open duration, or {@code null} to keep
	 * @return the merged settings
	 */
	public CircuitBreakerSettings with(@Nullable Float failureRateThreshold, @Nullable Integer minimumNumberOfCalls,
			@Nullable SlidingWindowType slidingWindowType, @Nullable Integer slidingWindowSize,
			@Nullable Duration waitDurationInOpenState) {
		return new CircuitBreakerSettings(
				(failureRateThreshold != null) ? failureRateThreshold : this.failureRateThreshold,
				(minimumNumberOfCalls != null) ? minimumNumberOfCalls : this.minimumNumberOfCalls,
				(slidingWindowType != null) ? slidingWindowType : this.slidingWindowType,
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
		if (this.slidingWindowType == null) {
			problems.add(problem(prefix + ".sliding-window-type", "null", "time-based or count-based", "time-based"));
		}
		if (this.slidingWindowSize < 1) {
			problems.add(problem(prefix + ".sliding-window-size", String.valueOf(this.slidingWindowSize), "at least 1",
					"60"));
		}
		if (this.waitDurationInOpenState == null || this.waitDurationInOpenState.isNegative()
				|| this.waitDurationInOpenState.isZero()) {
			problems.add(problem(prefix + ".wait-duration-in-open-state", String.valueOf(this.waitDurationInOpenState),
					"a positive duration", "10s"));
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
			.slidingWindowType((this.slidingWindowType == SlidingWindowType.TIME_BASED)
					? CircuitBreakerConfig.SlidingWindowType.TIME_BASED
					: CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
			.slidingWindowSize(this.slidingWindowSize)
			.waitDurationInOpenState(this.waitDurationInOpenState)
			// slow calls are already timeouts, counted as failures
			.slowCallRateThreshold(100)
			.build();
	}

	/**
	 * What a breaker's sliding window holds.
	 */
	public enum SlidingWindowType {

		/** The calls of the last {@code sliding-window-size} seconds. */
		TIME_BASED,

		/** The last {@code sliding-window-size} calls. */
		COUNT_BASED

	}

}
