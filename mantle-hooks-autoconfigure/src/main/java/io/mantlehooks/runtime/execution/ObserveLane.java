package io.mantlehooks.runtime.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;

import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookSignal;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookScope;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts observe hooks and returns at once: each observer is one task on the hook
 * executor. Each gets the payload (immutable, shared by all of them) and its own timeout,
 * counted from the moment its method starts (its thread is interrupted, its stage
 * cancelled, when it expires). A busy observer is never dropped; a hung one (holding
 * {@code max-concurrent} invocations past their timeout and still running) drops further
 * invocations, counted, never queued, so a hung observer loses only its own invocations.
 * Crashes, timeouts, signals and the first drop of each observer are logged and
 * discarded.
 */
final class ObserveLane {

	private static final Log logger = LogFactory.getLog(ObserveLane.class);

	private final Executor executor;

	private final ScheduledExecutorService timer;

	private final HookObservations observations;

	ObserveLane(Executor executor, ScheduledExecutorService timer, HookObservations observations) {
		this.executor = executor;
		this.timer = timer;
		this.observations = observations;
	}

	/**
	 * Admit and start the observers of a point.
	 */
	void start(List<HookMethod> observers, HookPayload payload, HookScope scope) {
		dispatch(admit(observers, scope), payload, scope);
	}

	/**
	 * Admit each observer for one invocation now, so that it counts as in flight from
	 * here; one that holds {@code max-concurrent} hung invocations is dropped, counted.
	 * @return the observers admitted, to {@link #dispatch} exactly once
	 */
	List<HookMethod> admit(List<HookMethod> observers, HookScope scope) {
		List<HookMethod> admitted = null;
		for (int i = 0; i < observers.size(); i++) {
			HookMethod observer = observers.get(i);
			if (observer.tryAdmit()) {
				if (admitted != null) {
					admitted.add(observer);
				}
				continue;
			}
			if (admitted == null) {
				admitted = new ArrayList<>(observers.subList(0, i));
			}
			scope.run(() -> {
				drop(observer);
				this.observations.skipped(observer, scope, HookOutcome.DROPPED);
			});
		}
		return (admitted != null) ? admitted : observers;
	}

	/**
	 * Start admitted observers on the payload as observers see it (immutable, shared by
	 * all of them), one task each.
	 */
	void dispatch(List<HookMethod> admitted, HookPayload payload, HookScope scope) {
		HookPayload seen = PayloadCopies.forObserver(payload);
		for (HookMethod observer : admitted) {
			Observation observation = this.observations.start(observer, scope);
			HookInvocation invocation = new HookInvocation(observer, seen, scope, this.timer);
			invocation.outcome().whenComplete((returned, ex) -> ended(invocation, observation, ex));
			invocation.submit(this.executor);
		}
	}

	/**
	 * Report an observer's end, on whichever thread completed its outcome (the hook's,
	 * its stage's or the timer's); what fails here must not reach that thread.
	 */
	private static void ended(HookInvocation invocation, @Nullable Observation observation, @Nullable Throwable ex) {
		HookMethod observer = invocation.hook();
		try {
			if (ex == null) {
				HookObservations.finish(observer, observation, HookOutcome.PROCEEDED, null, null,
						invocation.queuedNanos());
				return;
			}
			Throwable cause = HookInvocation.unwrap(ex);
			HookOutcome outcome = invocation.scope().call(() -> report(observer, cause));
			HookObservations.finish(observer, observation, outcome, (outcome == HookOutcome.CRASH) ? cause : null, null,
					invocation.queuedNanos());
		}
		catch (Throwable failure) {
			HookInvocation.logFailure("Reporting the end of hook '" + observer.name() + "' failed", failure);
		}
	}

	private static HookOutcome report(HookMethod observer, @Nullable Throwable cause) {
		if (cause == null) {
			return HookOutcome.PROCEEDED;
		}
		if (cause instanceof HookInvocation.NullStage nullStage) {
			warn(observer, "returned " + nullStage.getMessage(), null);
			return HookOutcome.INVALID_RETURN;
		}
		if (cause instanceof TimeoutException) {
			warn(observer, "timed out after " + observer.timeout().toMillis() + "ms", null);
			return HookOutcome.TIMEOUT;
		}
		if (cause instanceof HookSignal signal) {
			warn(observer, "raised " + signal.getClass().getSimpleName()
					+ ", but observe hooks support no control signal; discarded", null);
			return HookOutcome.SIGNAL_DISCARDED;
		}
		warn(observer, "failed", cause);
		return HookOutcome.CRASH;
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

	private static void drop(HookMethod observer) {
		if (observer.reject()) {
			logger.warn("Dropping invocations of observe hook '" + observer.name() + "' at point "
					+ observer.point().configName() + ": it already has " + observer.maxAbandoned()
					+ " invocations past their timeout and still running (mantle.hooks.observers.max-concurrent); "
					+ "further drops of this hook are counted, not logged");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Dropped observe hook '" + observer.name() + "' at point " + observer.point().configName());
		}
	}

}
