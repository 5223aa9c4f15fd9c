package io.mantlehooks.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.AsyncTaskExecutor;

/**
 * Runs a modify hook and waits for it within its timeout (a Resilience4j
 * {@code TimeLimiter}; a blocking hook's thread is interrupted when it expires). Turns
 * whatever happened into a {@link ModifyResult}, logging each failure once.
 */
final class ModifyLane {

	private static final Log logger = LogFactory.getLog(ModifyLane.class);

	private final AsyncTaskExecutor executor;

	ModifyLane(AsyncTaskExecutor executor) {
		this.executor = executor;
	}

	<P extends HookPayload> ModifyResult<P> run(HookMethod hook, P payload) {
		P input = PayloadCopies.forModifier(payload);
		Future<@Nullable Object> future = null;
		Object returned;
		try {
			future = start(hook, input);
			Future<@Nullable Object> started = future;
			returned = hook.timeLimiter().executeFutureSupplier(() -> started);
		}
		catch (HookSignal signal) {
			return signalled(hook, signal, payload);
		}
		catch (TimeoutException ex) {
			if (future != null && future.isCancelled()) {
				return failed(hook, HookFailure.Kind.TIMEOUT, null);
			}
			return failed(hook, HookFailure.Kind.CRASH, ex);
		}
		catch (InterruptedException ex) {
			if (future != null) {
				future.cancel(true);
			}
			Thread.currentThread().interrupt();
			return failed(hook, HookFailure.Kind.INTERRUPTED, null);
		}
		catch (VirtualMachineError error) {
			throw error;
		}
		catch (Throwable ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof HookSignal signal) {
				return signalled(hook, signal, payload);
			}
			return failed(hook, HookFailure.Kind.CRASH, cause);
		}
		if (!hook.point().payloadType().isInstance(returned)) {
			logger.warn("Modify hook '" + hook.name() + "' at point " + hook.point().configName() + " returned "
					+ ((returned != null) ? "a " + returned.getClass().getName() : "null") + " instead of a "
					+ hook.point().payloadType().getSimpleName() + "; applying the fail policy "
					+ hook.point().failPolicy());
			return new ModifyResult.Failed<>(
					new HookFailure(hook.name(), hook.point(), HookFailure.Kind.INVALID_RETURN, null));
		}
		@SuppressWarnings("unchecked")
		P rewritten = (P) returned;
		return new ModifyResult.Proceed<>(IdentityWall.restore(rewritten, payload));
	}

	/**
	 * A blocking hook runs on the hook executor; an asynchronous one is called here and
	 * its stage or {@code Mono} awaited, without another thread.
	 */
	private Future<@Nullable Object> start(HookMethod hook, HookPayload input) throws Exception {
		if (hook.style() == InvocationStyle.BLOCKING) {
			return this.executor.submit(() -> hook.invoke(input));
		}
		Object returned = hook.invoke(input);
		return (returned != null) ? hook.toFuture(returned, this.executor) : CompletableFuture.completedFuture(null);
	}

	private static <P extends HookPayload> ModifyResult<P> signalled(HookMethod hook, HookSignal signal, P payload) {
		HookPoint point = hook.point();
		if (point.allowsSignal(signal.getClass())) {
			if (logger.isDebugEnabled()) {
				logger.debug("Modify hook '" + hook.name() + "' at point " + point.configName() + " raised "
						+ signal.getClass().getSimpleName());
			}
			return new ModifyResult.Signalled<>(signal);
		}
		logger.warn("Modify hook '" + hook.name() + "' at point " + point.configName() + " raised "
				+ signal.getClass().getSimpleName() + ", which " + point.configName()
				+ " does not support; the signal is discarded and the input payload continues");
		return new ModifyResult.Proceed<>(payload);
	}

	private static <P extends HookPayload> ModifyResult<P> failed(HookMethod hook, HookFailure.Kind kind,
			@Nullable Throwable cause) {
		String prefix = "Modify hook '" + hook.name() + "' at point " + hook.point().configName();
		String policy = "; applying the fail policy " + hook.point().failPolicy();
		switch (kind) {
			case TIMEOUT -> logger.warn(prefix + " timed out after " + hook.timeout().toMillis() + "ms" + policy);
			case INTERRUPTED -> logger.warn(prefix + " was abandoned: the calling thread was interrupted" + policy);
			default -> logger.warn(prefix + " failed" + policy, cause);
		}
		return new ModifyResult.Failed<>(new HookFailure(hook.name(), hook.point(), kind, cause));
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

}
