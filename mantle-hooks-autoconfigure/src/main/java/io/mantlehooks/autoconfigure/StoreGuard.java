package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnStateTransitionEvent;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.dao.DataIntegrityViolationException;

/**
 * Runs the calls of one database store under a time limit and behind a circuit breaker,
 * both from the application's Resilience4j registries under the store's name (so meters
 * bind them). The call runs on its own thread: a statement's query timeout does not cover
 * waiting for a connection (a pool's connection timeout is 30 seconds by default, and a
 * server that accepts connections and never answers holds the login as long), so the
 * caller stops waiting after the time limit and the call is interrupted and abandoned.
 * When enough calls failed, the breaker opens and calls fail at once, without touching
 * the database, until probes find it answering again.
 */
final class StoreGuard {

	/** The breaker of the transcript store. */
	static final String TRANSCRIPT = "mantle.store.transcript";

	/** The breaker of the approval store. */
	static final String APPROVALS = "mantle.store.approvals";

	private static final Log logger = LogFactory.getLog(StoreGuard.class);

	/**
	 * A few failures open it (half of the last 10 calls, at least 5 recorded); it stays
	 * open 10 seconds, then 2 probe calls decide. Values the database refuses do not
	 * count.
	 */
	private static final CircuitBreakerConfig BREAKER = CircuitBreakerConfig.custom()
		.failureRateThreshold(50)
		.minimumNumberOfCalls(5)
		.slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
		.slidingWindowSize(10)
		.waitDurationInOpenState(Duration.ofSeconds(10))
		.permittedNumberOfCallsInHalfOpenState(2)
		// a value the table refuses (an id longer than its column) is that call's
		// problem, not an outage: it must not open the breaker for every conversation
		.ignoreExceptions(DataIntegrityViolationException.class)
		.build();

	private final String name;

	private final String description;

	private final Duration timeout;

	private final CircuitBreaker breaker;

	private final TimeLimiter timeLimiter;

	private final AsyncTaskExecutor executor;

	/**
	 * Create a guard. A breaker or time limiter of this name the registries already hold
	 * (configured by the application) is used as it is.
	 * @param name the name of its breaker and time limiter
	 * @param description what the store is, for messages
	 * @param timeout how long a call may take
	 * @param breakers the application's circuit breakers
	 * @param timeLimiters the application's time limiters
	 * @param executor the threads the calls run on
	 */
	StoreGuard(String name, String description, Duration timeout, CircuitBreakerRegistry breakers,
			TimeLimiterRegistry timeLimiters, AsyncTaskExecutor executor) {
		this.name = name;
		this.description = description;
		this.timeout = timeout;
		this.breaker = breakers.circuitBreaker(name, BREAKER);
		this.timeLimiter = timeLimiters.timeLimiter(name,
				TimeLimiterConfig.custom().timeoutDuration(timeout).cancelRunningFuture(true).build());
		this.executor = executor;
		this.breaker.getEventPublisher().onStateTransition(this::logTransition);
	}

	String name() {
		return this.name;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Run a call of the store.
	 * @param call the call
	 * @return what it returned
	 * @throws StoreUnavailableException when the breaker is open or the call did not end
	 * within the time limit
	 * @throws RuntimeException what the call threw
	 */
	<T> T call(Callable<T> call) {
		try {
			return this.breaker
				.executeCallable(() -> this.timeLimiter.executeFutureSupplier(() -> this.executor.submit(call)));
		}
		catch (CallNotPermittedException ex) {
			throw new StoreUnavailableException(
					"The " + this.description + " is unavailable (circuit breaker '" + this.name + "' is open)", ex);
		}
		catch (TimeoutException ex) {
			throw new StoreUnavailableException("The " + this.description + " did not answer within "
					+ this.timeout.toMillis() + "ms (" + MantleHooksProperties.CONFIG_PREFIX + ".jdbc.query-timeout)",
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new StoreUnavailableException("Interrupted while waiting for the " + this.description, ex);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new StoreUnavailableException("The " + this.description + " failed", ex);
		}
	}

	/**
	 * Run a call of the store that returns nothing.
	 * @param call the call
	 */
	void run(Runnable call) {
		call(() -> {
			call.run();
			return null;
		});
	}

	private void logTransition(CircuitBreakerOnStateTransitionEvent event) {
		CircuitBreaker.State to = event.getStateTransition().getToState();
		if (to == CircuitBreaker.State.OPEN) {
			logger.warn("Circuit breaker '" + this.name + "' opened: recent calls of the " + this.description
					+ " failed or took longer than " + this.timeout.toMillis() + "ms; its calls fail at once for "
					+ this.breaker.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1) + "ms");
		}
		else if (to == CircuitBreaker.State.CLOSED) {
			logger.info("Circuit breaker '" + this.name + "' closed again; the " + this.description + " answers");
		}
	}

	/**
	 * A store call that failed because the store did not answer in time or its breaker is
	 * open.
	 */
	static final class StoreUnavailableException extends RuntimeException {

		StoreUnavailableException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
