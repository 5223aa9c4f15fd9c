package io.mantlehooks.runtime;

import java.util.concurrent.atomic.AtomicReference;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs the state changes of a modify hook's circuit breaker, seen by the calls that cause
 * them. A listener on the breaker's event publisher would do the same, but any consumer
 * makes the breaker publish an event object (with a time stamp) for every successful call
 * of every hook; reading the state around the calls costs a volatile read.
 */
final class BreakerTransitions {

	private static final Log logger = LogFactory.getLog(BreakerTransitions.class);

	private final CircuitBreaker breaker;

	private final String hookName;

	/** The state last logged, so concurrent calls that see one change log it once. */
	private final AtomicReference<CircuitBreaker.State> logged;

	BreakerTransitions(CircuitBreaker breaker, String hookName) {
		this.breaker = breaker;
		this.hookName = hookName;
		this.logged = new AtomicReference<>(breaker.getState());
	}

	/**
	 * Log the breaker's state when it differs from the state last logged: call it after
	 * each call that may move the breaker (its permission, its result). A change made
	 * outside the hook's calls (a manual transition) is logged at the next call.
	 * @param scope the turn of the call, whose id the log line carries
	 */
	void check(HookScope scope) {
		CircuitBreaker.State now = this.breaker.getState();
		CircuitBreaker.State before = this.logged.get();
		if (now != before && this.logged.compareAndSet(before, now)) {
			scope.run(() -> log(before, now));
		}
	}

	private void log(CircuitBreaker.State from, CircuitBreaker.State to) {
		String hook = "Circuit breaker of modify hook '" + this.hookName + "'";
		if (to == CircuitBreaker.State.OPEN) {
			logger.warn(hook + " opened: at least " + this.breaker.getCircuitBreakerConfig().getFailureRateThreshold()
					+ "% of its recent calls failed (crash, timeout or invalid return); its point's fail policy "
					+ "applies at once, without calling it, for "
					+ this.breaker.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1) + "ms");
		}
		else if (to == CircuitBreaker.State.CLOSED) {
			logger.info(hook + " closed again; the hook is called as before");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(hook + ": " + from + " -> " + to);
		}
	}

}
