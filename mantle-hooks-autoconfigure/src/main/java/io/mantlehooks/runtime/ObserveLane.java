package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts observe hooks and returns at once: the caller only hands each observer to the
 * hook executor. Each observer gets its own copy of the payload and its own timeout (its
 * thread is interrupted, its stage cancelled, when it expires). A Resilience4j
 * {@link Bulkhead} bounds the invocations in flight; beyond it an invocation is dropped
 * and counted, never queued. Crashes, timeouts and signals are logged once and discarded.
 */
final class ObserveLane {

	private static final Log logger = LogFactory.getLog(ObserveLane.class);

	private static final long DROP_LOG_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	private final Executor executor;

	private final HookDeadlines deadlines;

	private final Bulkhead bulkhead;

	private final AtomicLong dropped = new AtomicLong();

	private final AtomicLong lastDropLog = new AtomicLong(System.nanoTime() - DROP_LOG_INTERVAL_NANOS);

	ObserveLane(Executor executor, HookDeadlines deadlines, int maxConcurrent) {
		this.executor = executor;
		this.deadlines = deadlines;
		this.bulkhead = Bulkhead.of("mantle-hooks-observers",
				BulkheadConfig.custom().maxConcurrentCalls(maxConcurrent).maxWaitDuration(Duration.ZERO).build());
	}

	void start(List<HookMethod> observers, HookPayload payload, HookScope scope) {
		for (HookMethod observer : observers) {
			start(observer, payload, scope);
		}
	}

	long dropped() {
		return this.dropped.get();
	}

	int inFlight() {
		return this.bulkhead.getBulkheadConfig().getMaxConcurrentCalls()
				- this.bulkhead.getMetrics().getAvailableConcurrentCalls();
	}

	private void start(HookMethod observer, HookPayload payload, HookScope scope) {
		if (!this.bulkhead.tryAcquirePermission()) {
			drop(observer, scope);
			return;
		}
		HookInvocation invocation = HookInvocation.start(observer, PayloadCopies.forObserver(payload), scope,
				this.executor, this.deadlines, this.bulkhead::onComplete);
		invocation.outcome().whenComplete((returned, ex) -> scope.run(() -> report(observer, returned, ex)));
	}

	private void report(HookMethod observer, @Nullable Object returned, @Nullable Throwable ex) {
		if (ex == null) {
			if (returned == null && observer.style() != InvocationStyle.BLOCKING) {
				warn(observer, "returned null instead of a " + observer.style().returnTypeName(), null);
			}
			return;
		}
		Throwable cause = HookInvocation.unwrap(ex);
		if (cause instanceof TimeoutException) {
			warn(observer, "timed out after " + observer.timeout().toMillis() + "ms", null);
		}
		else if (cause instanceof HookSignal signal) {
			warn(observer, "raised " + signal.getClass().getSimpleName()
					+ ", but observe hooks support no control signal; discarded", null);
		}
		else {
			warn(observer, "failed", cause);
		}
	}

	private static void warn(HookMethod observer, String what, @Nullable Throwable cause) {
		String message = "Observe hook '" + observer.name() + "' at point " + observer.point().configName() + " "
				+ what;
		if (cause instanceof VirtualMachineError) {
			logger.error(message, cause);
		}
		else {
			logger.warn(message, cause);
		}
	}

	private void drop(HookMethod observer, HookScope scope) {
		long total = this.dropped.incrementAndGet();
		long now = System.nanoTime();
		long last = this.lastDropLog.get();
		if (now - last >= DROP_LOG_INTERVAL_NANOS && this.lastDropLog.compareAndSet(last, now)) {
			scope.run(() -> logger
				.warn("Dropped observe hook '" + observer.name() + "' at point " + observer.point().configName()
						+ ": the observers' in-flight limit (mantle.hooks.observers.max-concurrent) is reached; "
						+ total + " observe invocations dropped so far"));
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Dropped observe hook '" + observer.name() + "' at point " + observer.point().configName());
		}
	}

}
