package io.mantlehooks.runtime;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What the runner needs to know about the turn a hook runs for: the turn's id (for logs,
 * where it is the MDC entry {@value #MDC_TURN_ID}) and the caller's thread context, which
 * is restored on whatever thread runs the hook. Immutable.
 */
public final class HookScope {

	/** The MDC key that holds the turn id while the turn's hooks and the turn run. */
	public static final String MDC_TURN_ID = "mantle.turn_id";

	private static final HookScope NONE = new HookScope("", CallerContext.empty(), null);

	private final String turnId;

	private final CallerContext caller;

	/** The caller's context with the turn id in the MDC: what hook threads get. */
	private final CallerContext hookContext;

	private final @Nullable Observation observation;

	private HookScope(String turnId, CallerContext caller, @Nullable Observation observation) {
		this.turnId = turnId;
		this.caller = caller;
		this.hookContext = turnId.isEmpty() ? caller : caller.withMdc(MDC_TURN_ID, turnId);
		this.observation = observation;
	}

	private HookScope(HookScope scope, Observation observation) {
		this.turnId = scope.turnId;
		this.caller = scope.caller;
		this.hookContext = scope.hookContext;
		this.observation = observation;
	}

	/**
	 * Return the scope of a turn.
	 * @param turnId the turn's id
	 * @param caller the caller's context, captured when the turn started
	 * @return the scope
	 */
	public static HookScope of(String turnId, CallerContext caller) {
		Assert.notNull(turnId, "'turnId' must not be null");
		Assert.notNull(caller, "'caller' must not be null");
		return new HookScope(turnId, caller, null);
	}

	/**
	 * Return this scope with the turn's observation, the parent of its hooks'
	 * observations.
	 * @param observation the turn's {@code mantle.turn} observation
	 * @return the scope
	 */
	public HookScope withObservation(Observation observation) {
		Assert.notNull(observation, "'observation' must not be null");
		return new HookScope(this, observation);
	}

	/**
	 * Return the turn's observation.
	 * @return the observation, {@code null} when turns are not observed
	 */
	public @Nullable Observation observation() {
		return this.observation;
	}

	/**
	 * Return the scope used outside any turn: no turn id, no caller context to restore.
	 * @return the empty scope
	 */
	public static HookScope none() {
		return NONE;
	}

	/**
	 * Return the id of the turn, {@code ""} outside a turn.
	 * @return the turn id
	 */
	public String turnId() {
		return this.turnId;
	}

	/**
	 * Return the caller's context.
	 * @return the captured context
	 */
	public CallerContext caller() {
		return this.caller;
	}

	/**
	 * Run the work with the caller's context and the turn id in the MDC, then restore
	 * what the thread had before.
	 * @param <T> the result type
	 * @param work the work
	 * @return what the work returned
	 */
	public <T> T call(Supplier<T> work) {
		return this.hookContext.call(work);
	}

	/**
	 * Run the task with the caller's context and the turn id in the MDC.
	 * @param task the task
	 */
	public void run(Runnable task) {
		call(() -> {
			task.run();
			return null;
		});
	}

	@Override
	public String toString() {
		return "HookScope[turnId=" + this.turnId + "]";
	}

}
