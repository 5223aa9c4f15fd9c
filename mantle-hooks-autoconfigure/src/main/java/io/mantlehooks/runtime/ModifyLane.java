package io.mantlehooks.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookSignal;
import io.mantlehooks.PayloadTooDeepException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs a modify hook on the hook executor under its timeout (the duration of its
 * Resilience4j {@code TimeLimiter}, which also publishes each outcome) and turns whatever
 * happened into a {@link ModifyResult}, logging each failure once. Nobody blocks here:
 * the result future completes on a hook-executor thread (the hook's own thread when it
 * returned in time, otherwise a fresh task), never on the timeout timer or a thread the
 * hook's own stage completed on, so whoever continues the turn from it does not hold
 * those up.
 */
final class ModifyLane {

	private static final Log logger = LogFactory.getLog(ModifyLane.class);

	private final Executor executor;

	private final HookDeadlines deadlines;

	ModifyLane(Executor executor, HookDeadlines deadlines) {
		this.executor = executor;
		this.deadlines = deadlines;
	}

	<P extends HookPayload> CompletableFuture<ModifyResult<P>> start(HookMethod hook, P payload, HookScope scope) {
		if (!hook.tryAcquirePermission()) {
			return CompletableFuture.completedFuture(scope.call(() -> bulkheadFull(hook)));
		}
		CompletableFuture<ModifyResult<P>> result = new CompletableFuture<>();
		P input = PayloadCopies.forModifier(payload);
		HookInvocation invocation = HookInvocation.start(hook, input, scope, this.executor, this.deadlines,
				hook.bulkhead()::onComplete);
		invocation.outcome().whenComplete((returned, ex) -> {
			// the hook's TimeLimiter publishes what happened (its events and metrics)
			if (ex == null) {
				hook.timeLimiter().onSuccess();
			}
			else {
				hook.timeLimiter().onError(HookInvocation.unwrap(ex));
			}
			Runnable complete = () -> result.complete(scope.call(() -> interpretSafely(hook, payload, returned, ex)));
			if (invocation.isOnHookThread()) {
				complete.run();
				return;
			}
			try {
				this.executor.execute(complete);
			}
			catch (RejectedExecutionException rejected) {
				complete.run();
			}
		});
		return result;
	}

	/**
	 * Whatever goes wrong while judging the hook's return counts as the hook's crash: the
	 * result future must complete, or the turn would wait forever.
	 */
	private static <P extends HookPayload> ModifyResult<P> interpretSafely(HookMethod hook, P payload,
			@Nullable Object returned, @Nullable Throwable ex) {
		try {
			return interpret(hook, payload, returned, ex);
		}
		catch (Throwable unexpected) {
			return failed(hook, HookFailure.Kind.CRASH, unexpected);
		}
	}

	private static <P extends HookPayload> ModifyResult<P> interpret(HookMethod hook, P payload,
			@Nullable Object returned, @Nullable Throwable ex) {
		if (ex != null) {
			Throwable cause = HookInvocation.unwrap(ex);
			if (cause instanceof HookSignal signal) {
				return signalled(hook, signal, payload);
			}
			if (cause instanceof TimeoutException) {
				return failed(hook, HookFailure.Kind.TIMEOUT, null);
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
		return new ModifyResult.Proceed<>(IdentityWall.restore(rewritten, payload));
	}

	/**
	 * The hook already has its limit of invocations in flight (hung ones among them): the
	 * point's fail policy applies at once, without waiting for a timeout.
	 */
	private static <P extends HookPayload> ModifyResult<P> bulkheadFull(HookMethod hook) {
		if (hook.reject()) {
			logger.warn(describe(hook) + " already has " + hook.bulkhead().getBulkheadConfig().getMaxConcurrentCalls()
					+ " invocations in flight (mantle.hooks.modify.max-concurrent); applying the fail policy "
					+ hook.point().failPolicy() + " at once to further calls until some return; they are counted, "
					+ "not logged");
		}
		return new ModifyResult.Failed<>(
				new HookFailure(hook.name(), hook.point(), HookFailure.Kind.BULKHEAD_FULL, null));
	}

	private static <P extends HookPayload> ModifyResult<P> invalid(HookMethod hook, String what) {
		logger.warn(describe(hook) + " returned " + what + policy(hook));
		return new ModifyResult.Failed<>(
				new HookFailure(hook.name(), hook.point(), HookFailure.Kind.INVALID_RETURN, null));
	}

	private static <P extends HookPayload> ModifyResult<P> signalled(HookMethod hook, HookSignal signal, P payload) {
		HookPoint point = hook.point();
		if (point.allowsSignal(signal.getClass())) {
			if (logger.isDebugEnabled()) {
				logger.debug(describe(hook) + " raised " + signal.getClass().getSimpleName());
			}
			return new ModifyResult.Signalled<>(signal);
		}
		logger.warn(describe(hook) + " raised " + signal.getClass().getSimpleName() + ", which " + point.configName()
				+ " does not support; the signal is discarded and the input payload continues");
		return new ModifyResult.Proceed<>(payload);
	}

	private static <P extends HookPayload> ModifyResult<P> failed(HookMethod hook, HookFailure.Kind kind,
			@Nullable Throwable cause) {
		switch (kind) {
			case TIMEOUT ->
				logger.warn(describe(hook) + " timed out after " + hook.timeout().toMillis() + "ms" + policy(hook));
			default -> {
				if (cause instanceof VirtualMachineError) {
					logger.error(describe(hook) + " threw " + cause.getClass().getName() + policy(hook), cause);
				}
				else {
					logger.warn(describe(hook) + " failed" + policy(hook), cause);
				}
			}
		}
		return new ModifyResult.Failed<>(new HookFailure(hook.name(), hook.point(), kind, cause));
	}

	private static String describe(HookMethod hook) {
		return "Modify hook '" + hook.name() + "' at point " + hook.point().configName();
	}

	private static String policy(HookMethod hook) {
		return "; applying the fail policy " + hook.point().failPolicy();
	}

}
