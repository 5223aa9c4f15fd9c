package io.mantlehooks.runtime;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Supplier;

import io.mantlehooks.MantleHooks;
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

	private static final HookScope NONE = new HookScope("", MantleHooks.DEFAULT_AGENT, CallerContext.empty(),
			CallerContext.empty(), null, null, Set.of());

	private final String turnId;

	private final String agent;

	private final CallerContext caller;

	/** The caller's context with the turn id in the MDC: what hook threads get. */
	private final CallerContext hookContext;

	private final @Nullable Observation observation;

	private final @Nullable Binding binding;

	/** The hooks whose own calls this scope belongs to: they do not run again. */
	private final Set<String> skippedHooks;

	private HookScope(String turnId, String agent, CallerContext caller, CallerContext hookContext,
			@Nullable Observation observation, @Nullable Binding binding, Set<String> skippedHooks) {
		this.turnId = turnId;
		this.agent = agent;
		this.caller = caller;
		this.hookContext = hookContext;
		this.observation = observation;
		this.binding = binding;
		this.skippedHooks = skippedHooks;
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
		return new HookScope(turnId, MantleHooks.DEFAULT_AGENT, caller,
				turnId.isEmpty() ? caller : caller.withMdc(MDC_TURN_ID, turnId), null, null, Set.of());
	}

	/**
	 * Return this scope for the turn of an agent: that agent's hooks run in it.
	 * @param agent the agent's name
	 * @return the scope
	 */
	public HookScope withAgent(String agent) {
		Assert.hasText(agent, "'agent' must not be empty");
		return agent.equals(this.agent) ? this : new HookScope(this.turnId, agent, this.caller, this.hookContext,
				this.observation, this.binding, this.skippedHooks);
	}

	/**
	 * Return the agent whose hooks run in this scope.
	 * @return the agent's name, {@link MantleHooks#DEFAULT_AGENT} when the client named
	 * none
	 */
	public String agent() {
		return this.agent;
	}

	/**
	 * Return this scope with the turn's observation, the parent of its hooks'
	 * observations.
	 * @param observation the turn's {@code mantle.turn} observation
	 * @return the scope
	 */
	public HookScope withObservation(Observation observation) {
		Assert.notNull(observation, "'observation' must not be null");
		return new HookScope(this.turnId, this.agent, this.caller, this.hookContext, observation, this.binding,
				this.skippedHooks);
	}

	/**
	 * Return this scope with what each of its hooks' threads makes current while the hook
	 * runs (the turn, so that a model call made from a hook belongs to it).
	 * @param binding the binding
	 * @return the scope
	 */
	public HookScope withBinding(Binding binding) {
		Assert.notNull(binding, "'binding' must not be null");
		return new HookScope(this.turnId, this.agent, this.caller, this.hookContext, this.observation, binding,
				this.skippedHooks);
	}

	/**
	 * Return this scope for work a hook started itself (a model call made from a hook):
	 * that hook does not run for it, so a hook never recurses into itself.
	 * @param hookName the name of the hook the work came from
	 * @return the scope
	 */
	public HookScope skipping(String hookName) {
		Assert.hasText(hookName, "'hookName' must not be empty");
		if (this.skippedHooks.contains(hookName)) {
			return this;
		}
		Set<String> skipped = new LinkedHashSet<>(this.skippedHooks);
		skipped.add(hookName);
		return new HookScope(this.turnId, this.agent, this.caller, this.hookContext, this.observation, this.binding,
				Collections.unmodifiableSet(skipped));
	}

	/**
	 * Return whether the hook does not run in this scope: the scope's work was started by
	 * that hook (directly or through other hooks' calls).
	 * @param hookName the hook's name
	 * @return whether the hook is skipped
	 */
	public boolean skips(String hookName) {
		return this.skippedHooks.contains(hookName);
	}

	public boolean skipsAny() {
		return !this.skippedHooks.isEmpty();
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

	/**
	 * Run one invocation of a hook: with the caller's context, the turn id in the MDC and
	 * what the binding makes current for that hook.
	 * @param hookName the hook's name
	 * @param invocation the invocation
	 */
	public void runHook(String hookName, Runnable invocation) {
		Binding binding = this.binding;
		if (binding == null) {
			run(invocation);
			return;
		}
		run(() -> {
			try (Binding.Bound bound = binding.bind(hookName)) {
				invocation.run();
			}
		});
	}

	@Override
	public String toString() {
		return "HookScope[turnId=" + this.turnId + ", agent=" + this.agent + "]";
	}

	/**
	 * What a hook's thread makes current while the hook runs, for code the hook calls
	 * without being handed the turn (a {@code ChatClient} call from a hook).
	 */
	@FunctionalInterface
	public interface Binding {

		/**
		 * Make the turn current on this thread for one invocation of a hook.
		 * @param hookName the hook's name
		 * @return what restores the thread when the invocation ends
		 */
		Bound bind(String hookName);

		/**
		 * A binding in effect; closing it restores what was current before.
		 */
		interface Bound extends AutoCloseable {

			@Override
			void close();

		}

	}

}
