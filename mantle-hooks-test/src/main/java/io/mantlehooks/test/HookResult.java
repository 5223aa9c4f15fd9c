package io.mantlehooks.test;

import java.util.Map;

import io.mantlehooks.HookFailure;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.HookSignal;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.RetryModel;
import org.jspecify.annotations.Nullable;

/**
 * What {@link HookTester#run} saw: the payload to continue with, a signal, or a failure
 * with its fail policy, plus each observer's outcome. The accessors for one case throw an
 * {@link AssertionError} that says what happened instead, so a test can write
 * {@code result.payload().text()} or {@code result.rejection().reason()} directly.
 *
 * @param <P> the payload type
 */
public final class HookResult<P extends HookPayload> {

	private final HookPoint point;

	private final P input;

	private final ModifyResult<P> result;

	private final @Nullable String modifier;

	private final Map<String, HookOutcome> observers;

	HookResult(HookPoint point, P input, ModifyResult<P> result, @Nullable String modifier,
			Map<String, HookOutcome> observers) {
		this.point = point;
		this.input = input;
		this.result = result;
		this.modifier = modifier;
		this.observers = Map.copyOf(observers);
	}

	/**
	 * Return the point the hooks ran at.
	 * @return the point
	 */
	public HookPoint point() {
		return this.point;
	}

	/**
	 * Return the runner's raw result.
	 * @return the result
	 */
	public ModifyResult<P> result() {
		return this.result;
	}

	/**
	 * Return whether the turn would go on with a payload (the modify hook returned one,
	 * or the point has no modify hook).
	 * @return whether it proceeded
	 */
	public boolean proceeded() {
		return this.result instanceof ModifyResult.Proceed;
	}

	/**
	 * Return whether the modify hook proceeded with a payload equal to the input.
	 * @return whether nothing changed
	 */
	public boolean unchanged() {
		return proceeded() && payload().equals(this.input);
	}

	/**
	 * Return the payload the turn would go on with.
	 * @return the payload, identity fields as they came in
	 * @throws AssertionError when the hook did not proceed
	 */
	public P payload() {
		if (this.result instanceof ModifyResult.Proceed<P> proceed) {
			return proceed.payload();
		}
		throw new AssertionError("Expected the hook to proceed, but " + describe());
	}

	/**
	 * Return whether the modify hook rejected.
	 * @return whether it threw a {@link HookRejection} the point allows
	 */
	public boolean rejected() {
		return signal() instanceof HookRejection;
	}

	/**
	 * Return the rejection.
	 * @return the rejection, with its reason and response name
	 * @throws AssertionError when the hook did not reject
	 */
	public HookRejection rejection() {
		if (signal() instanceof HookRejection rejection) {
			return rejection;
		}
		throw new AssertionError("Expected the hook to reject, but " + describe());
	}

	/**
	 * Return whether the modify hook asked for another model call.
	 * @return whether it threw a {@link RetryModel} the point allows
	 */
	public boolean retried() {
		return signal() instanceof RetryModel;
	}

	/**
	 * Return the retry.
	 * @return the retry, with its feedback
	 * @throws AssertionError when the hook did not retry
	 */
	public RetryModel retry() {
		if (signal() instanceof RetryModel retry) {
			return retry;
		}
		throw new AssertionError("Expected the hook to retry, but " + describe());
	}

	/**
	 * Return whether the modify hook failed (crash, timeout, invalid return, ...).
	 * @return whether it failed
	 */
	public boolean failed() {
		return this.result instanceof ModifyResult.Failed;
	}

	/**
	 * Return the failure.
	 * @return the failure: hook, kind and cause
	 * @throws AssertionError when the hook did not fail
	 */
	public HookFailure failure() {
		if (this.result instanceof ModifyResult.Failed<P> failed) {
			return failed.failure();
		}
		throw new AssertionError("Expected the hook to fail, but " + describe());
	}

	/**
	 * Return whether the hook failed and the turn would go on with the original payload.
	 * @return whether it failed open
	 */
	public boolean failedOpen() {
		return this.result instanceof ModifyResult.Failed<P> failed && failed.policy() == HookPoint.FailPolicy.OPEN;
	}

	/**
	 * Return whether the hook failed and the turn would take the point's closed path
	 * (rejection, error reply, no search, nothing in the batch runs).
	 * @return whether it failed closed
	 */
	public boolean failedClosed() {
		return this.result instanceof ModifyResult.Failed<P> failed && failed.policy() == HookPoint.FailPolicy.CLOSED;
	}

	/**
	 * Return each observer's outcome, by {@code bean.method}.
	 * @return the observers' outcomes ({@code PROCEEDED}, {@code CRASH}, {@code TIMEOUT},
	 * ...)
	 */
	public Map<String, HookOutcome> observers() {
		return this.observers;
	}

	private @Nullable HookSignal signal() {
		return (this.result instanceof ModifyResult.Signalled<P> signalled) ? signalled.signal() : null;
	}

	private String describe() {
		String hook = (this.modifier != null) ? this.modifier : "no modify hook";
		if (this.result instanceof ModifyResult.Proceed<P> proceed) {
			return hook + " proceeded with " + proceed.payload();
		}
		if (this.result instanceof ModifyResult.Signalled<P> signalled) {
			return hook + " signalled " + signalled.signal();
		}
		HookFailure failure = ((ModifyResult.Failed<P>) this.result).failure();
		return hook + " failed (" + failure.kind() + ", " + ((ModifyResult.Failed<P>) this.result).policy() + ")"
				+ ((failure.cause() != null) ? ": " + failure.cause() : "");
	}

	@Override
	public String toString() {
		return "HookResult at " + this.point.configName() + ": " + describe() + ", observers " + this.observers;
	}

}
