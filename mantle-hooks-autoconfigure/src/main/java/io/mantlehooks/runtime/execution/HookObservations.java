package io.mantlehooks.runtime.execution;

import java.time.Duration;

import io.mantlehooks.HookOutcome;
import io.mantlehooks.observation.DefaultHookObservationConvention;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.HookObservationConvention;
import io.mantlehooks.observation.HookObservationDocumentation;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookScope;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Counts each hook invocation's outcome on its hook and reports it as a
 * {@code mantle.hook} observation, a child of the turn's observation. Whether an
 * observation is made at all is the registry's to say: with no handler, or with a
 * predicate that keeps {@code mantle.hook} out, Micrometer hands back its no-op
 * observation.
 */
final class HookObservations {

	private static final HookObservationConvention DEFAULT_CONVENTION = new DefaultHookObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable HookObservationConvention convention;

	HookObservations(ObservationRegistry registry, @Nullable HookObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	/**
	 * Start the observation of an invocation handed to the executor now.
	 * @return the started observation, {@code null} when nothing is observed
	 */
	@Nullable Observation start(HookMethod hook, HookScope scope) {
		return start(hook, scope, null);
	}

	/**
	 * Start the observation of an invocation handed to the executor now.
	 * @param input the payload the hook is given, kept on the context for handlers
	 * @return the started observation, {@code null} when nothing is observed
	 */
	@Nullable Observation start(HookMethod hook, HookScope scope, @Nullable Object input) {
		if (this.registry.isNoop()) {
			return null;
		}
		try {
			Observation observation = HookObservationDocumentation.MANTLE_HOOK.observation(this.convention,
					DEFAULT_CONVENTION, () -> context(hook, scope, input), this.registry);
			if (observation.isNoop()) {
				return null;
			}
			Observation parent = scope.observation();
			if (parent != null) {
				observation.parentObservation(parent);
			}
			return observation.start();
		}
		catch (RuntimeException ex) {
			// an observation handler that throws must not keep the hook from running,
			// nor leave its admission unreleased: this invocation goes unobserved
			return null;
		}
	}

	private static HookObservationContext context(HookMethod hook, HookScope scope, @Nullable Object input) {
		HookObservationContext context = new HookObservationContext(hook.name(), hook.point(),
				(hook.lane() == HookLane.OBSERVE) ? "observe" : "modify", scope.turnId());
		context.setInput(input);
		context.setAgent(scope.agent());
		return context;
	}

	/**
	 * Count an invocation's outcome and stop its observation.
	 * @param error what the hook threw, for a crash
	 * @param output the payload a modify hook proceeded with
	 * @param queuedNanos how long the invocation waited for a thread
	 */
	static void finish(HookMethod hook, @Nullable Observation observation, HookOutcome outcome,
			@Nullable Throwable error, @Nullable Object output, long queuedNanos) {
		hook.count(outcome);
		if (observation == null) {
			return;
		}
		if (observation.getContext() instanceof HookObservationContext context) {
			context.setOutcome(outcome.tagValue());
			context.setOutput(output);
			context.setQueued(Duration.ofNanos(queuedNanos));
		}
		if (error != null) {
			observation.error(error);
		}
		observation.stop();
	}

	/**
	 * Count and observe an invocation that never ran (dropped, bulkhead full, circuit
	 * open).
	 */
	void skipped(HookMethod hook, HookScope scope, HookOutcome outcome) {
		finish(hook, start(hook, scope), outcome, null, null, 0);
	}

}
