package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskExecutor;
import org.springframework.core.task.TaskRejectedException;

/**
 * Starts observe hooks and returns at once. Each observer runs on the hook executor with
 * its own timeout (its thread is interrupted when it expires). A Resilience4j
 * {@link Bulkhead} bounds the invocations in flight; beyond it an invocation is dropped
 * and counted, never queued. Crashes, timeouts and signals are logged once and discarded.
 */
final class ObserveLane {

	private static final Log logger = LogFactory.getLog(ObserveLane.class);

	private static final long DROP_LOG_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	private final TaskExecutor executor;

	private final ScheduledExecutorService timer;

	private final Bulkhead bulkhead;

	private final AtomicLong dropped = new AtomicLong();

	private final AtomicLong lastDropLog = new AtomicLong(System.nanoTime() - DROP_LOG_INTERVAL_NANOS);

	ObserveLane(TaskExecutor executor, ScheduledExecutorService timer, int maxConcurrent) {
		this.executor = executor;
		this.timer = timer;
		this.bulkhead = Bulkhead.of("mantle-hooks-observers",
				BulkheadConfig.custom().maxConcurrentCalls(maxConcurrent).maxWaitDuration(Duration.ZERO).build());
	}

	void run(List<HookMethod> observers, HookPayload payload) {
		HookPayload view = PayloadCopies.forObservers(payload);
		for (HookMethod observer : observers) {
			start(observer, view);
		}
	}

	long dropped() {
		return this.dropped.get();
	}

	int inFlight() {
		return this.bulkhead.getBulkheadConfig().getMaxConcurrentCalls()
				- this.bulkhead.getMetrics().getAvailableConcurrentCalls();
	}

	private void start(HookMethod observer, HookPayload payload) {
		if (!this.bulkhead.tryAcquirePermission()) {
			drop(observer);
			return;
		}
		try {
			this.executor.execute(new Invocation(observer, payload));
		}
		catch (TaskRejectedException ex) {
			this.bulkhead.onComplete();
			drop(observer);
		}
	}

	private void drop(HookMethod observer) {
		long total = this.dropped.incrementAndGet();
		long now = System.nanoTime();
		long last = this.lastDropLog.get();
		if (now - last >= DROP_LOG_INTERVAL_NANOS && this.lastDropLog.compareAndSet(last, now)) {
			logger.warn("Dropped observe hook '" + observer.name() + "' at point " + observer.point().configName()
					+ ": the observers' in-flight limit (mantle.hooks.observers.max-concurrent) is reached; " + total
					+ " observe invocations dropped so far");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Dropped observe hook '" + observer.name() + "' at point " + observer.point().configName());
		}
	}

	/**
	 * One observer call: owns its permit until the hook's thread is free again (or, for
	 * an asynchronous hook, until its result completes or times out), so the bulkhead
	 * counts what really runs.
	 */
	private final class Invocation implements Runnable {

		private final HookMethod observer;

		private final FutureTask<@Nullable Object> call;

		private final AtomicBoolean reported = new AtomicBoolean();

		private final AtomicBoolean finished = new AtomicBoolean();

		private volatile @Nullable ScheduledFuture<?> timeoutTask;

		private volatile @Nullable CompletableFuture<@Nullable Object> pending;

		private volatile boolean deadlinePassed;

		private final AtomicBoolean expired = new AtomicBoolean();

		Invocation(HookMethod observer, HookPayload payload) {
			this.observer = observer;
			this.call = new FutureTask<>(() -> observer.invoke(payload));
		}

		@Override
		public void run() {
			try {
				this.timeoutTask = ObserveLane.this.timer.schedule(this::timeOut, this.observer.timeout().toNanos(),
						TimeUnit.NANOSECONDS);
				this.call.run();
				if (this.call.isCancelled()) {
					finish();
					return;
				}
				Object returned = this.call.get();
				if (this.observer.style() == InvocationStyle.BLOCKING) {
					finish();
				}
				else if (returned == null) {
					report("returned null instead of a " + this.observer.method().getReturnType().getSimpleName(),
							null);
					finish();
				}
				else {
					CompletableFuture<@Nullable Object> future = this.observer.toFuture(returned,
							ObserveLane.this.executor);
					this.pending = future;
					future.whenComplete((result, ex) -> {
						if (ex != null && !this.expired.get()) {
							crashed(ex);
						}
						finish();
					});
					if (this.deadlinePassed) {
						expire();
					}
				}
			}
			catch (ExecutionException ex) {
				crashed(ex.getCause());
				finish();
			}
			catch (InterruptedException ex) {
				finish();
			}
			catch (RuntimeException ex) {
				crashed(ex);
				finish();
			}
			finally {
				// A timeout's interrupt must not leak into the executor's next task.
				Thread.interrupted();
			}
		}

		/**
		 * Runs on the timer thread. The timeout is reported before anything is cancelled
		 * (cancelling completes the future, whose callbacks would report a crash), and
		 * the cancellation itself runs on the executor so user callbacks never hold the
		 * timer.
		 */
		private void timeOut() {
			this.deadlinePassed = true;
			if (this.call.isDone() && this.pending == null && this.observer.style() != InvocationStyle.BLOCKING) {
				// the hook returned its stage but run() has not attached to it yet; run()
				// sees deadlinePassed and finishes the job
				return;
			}
			expire();
		}

		private void expire() {
			CompletableFuture<@Nullable Object> pendingResult = this.pending;
			boolean completedInTime = (pendingResult != null) ? pendingResult.isDone()
					: (this.call.isDone() && this.observer.style() == InvocationStyle.BLOCKING);
			if (this.finished.get() || completedInTime || !this.expired.compareAndSet(false, true)) {
				return;
			}
			report("timed out after " + this.observer.timeout().toMillis() + "ms", null);
			CompletableFuture<@Nullable Object> future = this.pending;
			if (future == null) {
				this.call.cancel(true);
				return;
			}
			try {
				ObserveLane.this.executor.execute(() -> future.cancel(true));
			}
			catch (TaskRejectedException ex) {
				future.cancel(true);
			}
			finish();
		}

		private void crashed(@Nullable Throwable ex) {
			Throwable cause = ex;
			while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
				cause = cause.getCause();
			}
			if (cause instanceof HookSignal signal) {
				report("raised " + signal.getClass().getSimpleName()
						+ ", but observe hooks support no control signal; discarded", null);
			}
			else {
				report("failed", cause);
			}
		}

		private void report(String what, @Nullable Throwable cause) {
			if (this.reported.compareAndSet(false, true)) {
				logger.warn("Observe hook '" + this.observer.name() + "' at point " + this.observer.point().configName()
						+ " " + what, cause);
			}
		}

		private void finish() {
			if (this.finished.compareAndSet(false, true)) {
				ObserveLane.this.bulkhead.onComplete();
				ScheduledFuture<?> timeout = this.timeoutTask;
				if (timeout != null) {
					timeout.cancel(false);
				}
			}
		}

	}

}
