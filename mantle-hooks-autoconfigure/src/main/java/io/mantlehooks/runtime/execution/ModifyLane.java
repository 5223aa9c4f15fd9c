package io.mantlehooks.runtime.execution;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.HookFailure;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.HookSignal;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.PayloadTooDeepException;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookScope;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs a modify hook on the hook executor under its timeout (the duration of its
 * Resilience4j {@code TimeLimiter}, which also publishes each outcome) and turns whatever
 * happened into a {@link ModifyResult}, logging each failure once. Nobody blocks here:
 * the result future completes on a hook-executor thread (the hook's own thread when it
 * returned in time, otherwise a fresh task), never on the timer thread or a thread the
 * hook's own stage completed on, so whoever continues the turn from it does not hold
 * those up.
 */
final class ModifyLane {

	private static final Log logger = LogFactory.getLog(ModifyLane.class);

	/** What a circuit breaker records for a failure that is not an exception. */
	private static final HookFailedException NOT_AN_EXCEPTION = new HookFailedException();

	private final Executor executor;

	private final ScheduledExecutorService timer;

	private final HookObservations observations;

	ModifyLane(Executor executor, ScheduledExecutorService timer, HookObservations observations) {
		this.executor = executor;
		this.timer = timer;
		this.observations = observations;
	}

	<P extends HookPayload> CompletableFuture<ModifyResult<P>> start(HookMethod hook, P payload, HookScope scope) {
		CircuitBreaker breaker = hook.circuitBreaker();
		if (breaker != null) {
			boolean permitted = breaker.tryAcquirePermission();
			// an open breaker moves to half-open when a call asks after its wait
			hook.breakerMayHaveMoved(scope);
			if (!permitted) {
				return CompletableFuture
					.completedFuture(scope.call(() -> skipped(hook, scope, HookOutcome.CIRCUIT_OPEN)));
			}
		}
		if (!hook.tryAdmit()) {
			// a hung hook's refusal is no new fault: its timeouts were counted already,
			// and a busy hook is never refused (HookMethod.tryAdmit)
			if (breaker != null) {
				breaker.releasePermission();
			}
			return CompletableFuture.completedFuture(scope.call(() -> skipped(hook, scope, HookOutcome.BULKHEAD_FULL)));
		}
		Observation observation = this.observations.start(hook, scope, payload);
		CompletableFuture<ModifyResult<P>> result = new CompletableFuture<>();
		// payloads are deeply immutable, so the hook gets the payload itself
		HookInvocation invocation = new HookInvocation(hook, payload, scope, this.timer);
		invocation.outcome().whenComplete((returned, ex) -> {
			// the hook's TimeLimiter publishes what happened (its events and metrics)
			if (ex == null) {
				hook.timeLimiter().onSuccess();
			}
			else {
				hook.timeLimiter().onError(HookInvocation.unwrap(ex));
			}
			Supplier<ModifyResult<P>> decide = () -> {
				Decision<P> decision = decideSafely(hook, payload, returned, ex);
				record(hook, breaker, invocation.ranNanos(), decision, scope);
				HookObservations.finish(hook, observation, decision.outcome(),
						(decision.outcome() == HookOutcome.CRASH) ? decision.error() : null,
						(decision.result() instanceof ModifyResult.Proceed<P> proceed) ? proceed.payload() : null,
						invocation.queuedNanos());
				return decision.result();
			};
			if (invocation.isOnHookThread()) {
				// the hook's own thread still runs in the turn's context
				// (HookScope.runHook): no second context switch
				result.complete(decide.get());
				return;
			}
			Runnable complete = () -> result.complete(scope.call(decide));
			try {
				this.executor.execute(complete);
			}
			catch (RejectedExecutionException rejected) {
				complete.run();
			}
		});
		invocation.submit(this.executor);
		return result;
	}

	/**
	 * Tell the hook's circuit breaker how the call went: signals are decisions, not
	 * failures.
	 */
	private static void record(HookMethod hook, @Nullable CircuitBreaker breaker, long nanos, Decision<?> decision,
			HookScope scope) {
		if (breaker == null) {
			return;
		}
		if (decision.outcome().isFailure()) {
			Throwable error = decision.error();
			breaker.onError(nanos, TimeUnit.NANOSECONDS, (error != null) ? error : NOT_AN_EXCEPTION);
		}
		else {
			breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
		}
		hook.breakerMayHaveMoved(scope);
	}

	/**
	 * Whatever goes wrong while judging the hook's return counts as the hook's crash: the
	 * result future must complete, or the turn would wait forever.
	 */
	private static <P extends HookPayload> Decision<P> decideSafely(HookMethod hook, P payload,
			@Nullable Object returned, @Nullable Throwable ex) {
		try {
			return decide(hook, payload, returned, ex);
		}
		catch (Throwable unexpected) {
			return failed(hook, HookFailure.Kind.CRASH, unexpected);
		}
	}

	private static <P extends HookPayload> Decision<P> decide(HookMethod hook, P payload, @Nullable Object returned,
			@Nullable Throwable ex) {
		if (ex != null) {
			Throwable cause = HookInvocation.unwrap(ex);
			if (cause instanceof HookSignal signal) {
				return signalled(hook, signal, payload);
			}
			if (cause instanceof TimeoutException timeout) {
				return failed(hook, HookFailure.Kind.TIMEOUT, timeout);
			}
			if (cause instanceof HookInvocation.NullStage nullStage) {
				return invalid(hook, nullStage.getMessage());
			}
			if (cause instanceof PayloadTooDeepException tooDeep) {
				return invalid(hook, "a payload nested too deep (" + tooDeep.getMessage() + ")");
			}
			return failed(hook, HookFailure.Kind.CRASH, cause);
		}
		if (!hook.point().payloadType().isInstance(returned)) {
			return invalid(hook, ((returned != null) ? "a " + returned.getClass().getName() : "null") + " instead of a "
					+ hook.point().payloadType().getSimpleName());
		}
		@SuppressWarnings("unchecked")
		P rewritten = (P) returned;
		String problem = ReturnCheck.problem(rewritten);
		if (problem != null) {
			return invalid(hook, problem);
		}
		return new Decision<>(new ModifyResult.Proceed<>(IdentityWall.restore(rewritten, payload)),
				HookOutcome.PROCEEDED, null);
	}

	/**
	 * The hook was not called: its circuit breaker is open, or it is hung (it already
	 * holds its limit of abandoned invocations). The point's fail policy applies at once,
	 * without waiting for a timeout.
	 */
	private <P extends HookPayload> ModifyResult<P> skipped(HookMethod hook, HookScope scope, HookOutcome outcome) {
		this.observations.skipped(hook, scope, outcome);
		HookFailure.Kind kind;
		if (outcome == HookOutcome.CIRCUIT_OPEN) {
			// the breaker's state transitions are logged (HookGuards), not every
			// skipped call
			kind = HookFailure.Kind.CIRCUIT_OPEN;
		}
		else {
			kind = HookFailure.Kind.BULKHEAD_FULL;
			if (hook.reject()) {
				logger.warn(describe(hook) + " already has " + hook.maxAbandoned()
						+ " invocations past their timeout and still running (mantle.hooks.modify.max-concurrent); "
						+ "applying the fail policy " + hook.point().failPolicy()
						+ " at once to further calls until they return; they are counted, not logged");
			}
		}
		return new ModifyResult.Failed<>(new HookFailure(hook.name(), hook.point(), kind, null));
	}

	private static <P extends HookPayload> Decision<P> invalid(HookMethod hook, String what) {
		logger.warn(describe(hook) + " returned " + what + policy(hook));
		return new Decision<>(
				new ModifyResult.Failed<>(
						new HookFailure(hook.name(), hook.point(), HookFailure.Kind.INVALID_RETURN, null)),
				HookOutcome.INVALID_RETURN, null);
	}

	private static <P extends HookPayload> Decision<P> signalled(HookMethod hook, HookSignal signal, P payload) {
		HookPoint point = hook.point();
		if (point.allowsSignal(signal.getClass())) {
			if (logger.isDebugEnabled()) {
				logger.debug(describe(hook) + " raised " + signal.getClass().getSimpleName());
			}
			return new Decision<>(new ModifyResult.Signalled<>(signal),
					(signal instanceof HookRejection) ? HookOutcome.REJECTED : HookOutcome.RETRIED, null);
		}
		logger.warn(describe(hook) + " raised " + signal.getClass().getSimpleName() + ", which " + point.configName()
				+ " does not support; the signal is discarded and the input payload continues");
		return new Decision<>(new ModifyResult.Proceed<>(payload), HookOutcome.SIGNAL_DISCARDED, null);
	}

	private static <P extends HookPayload> Decision<P> failed(HookMethod hook, HookFailure.Kind kind,
			@Nullable Throwable cause) {
		if (kind == HookFailure.Kind.TIMEOUT) {
			logger.warn(describe(hook) + " timed out after " + hook.timeout().toMillis() + "ms" + policy(hook));
			return new Decision<>(new ModifyResult.Failed<>(new HookFailure(hook.name(), hook.point(), kind, null)),
					HookOutcome.TIMEOUT, cause);
		}
		if (cause instanceof VirtualMachineError) {
			logger.error(describe(hook) + " threw " + cause.getClass().getName() + policy(hook), cause);
		}
		else {
			logger.warn(describe(hook) + " failed" + policy(hook), cause);
		}
		return new Decision<>(new ModifyResult.Failed<>(new HookFailure(hook.name(), hook.point(), kind, cause)),
				HookOutcome.CRASH, cause);
	}

	private static String describe(HookMethod hook) {
		return "Modify hook '" + hook.name() + "' at point " + hook.point().configName();
	}

	private static String policy(HookMethod hook) {
		return "; applying the fail policy " + hook.point().failPolicy();
	}

	/**
	 * What the lane made of one invocation: the result for the turn, the outcome counted
	 * and observed, and what the hook threw, if anything.
	 */
	private record Decision<P extends HookPayload>(ModifyResult<P> result, HookOutcome outcome,
			@Nullable Throwable error) {
	}

	/**
	 * Stands for a failure that is no exception (an invalid return) in the circuit
	 * breaker's records; never thrown.
	 */
	private static final class HookFailedException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		HookFailedException() {
			super("hook failed", null, false, false);
		}

	}

}
