package io.mantlehooks.ai.turn;

import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.runtime.execution.HookRunner;

/**
 * The hooks of a point as a {@link Step}: without a modify hook the observers start and
 * the step is done at once (no future, no thread hop); with one, the step awaits it.
 */
public final class HookSteps {

	private HookSteps() {
	}

	/**
	 * Run the hooks of a point for a turn.
	 * @param <P> the payload type
	 * @param hooks the runner
	 * @param point the point
	 * @param payload the payload
	 * @param turn the turn
	 * @return a step whose result is what the modify hook decided
	 */
	public static <P extends HookPayload> Step<ModifyResult<P>> run(HookRunner hooks, HookPoint point, P payload,
			Turn turn) {
		if (!hooks.hasModifier(point, turn.scope())) {
			hooks.observe(point, payload, turn.scope());
			return Step.done(new ModifyResult.Proceed<>(payload));
		}
		return Step.await(hooks.run(point, payload, turn.scope()), Step::done);
	}

	/**
	 * Run only the modify hook of a point for a turn, without its observers.
	 * @param <P> the payload type
	 * @param hooks the runner
	 * @param point the point
	 * @param payload the payload
	 * @param turn the turn
	 * @return a step whose result is what the modify hook decided
	 */
	public static <P extends HookPayload> Step<ModifyResult<P>> runModifier(HookRunner hooks, HookPoint point,
			P payload, Turn turn) {
		if (!hooks.hasModifier(point, turn.scope())) {
			return Step.done(new ModifyResult.Proceed<>(payload));
		}
		return Step.await(hooks.runModifier(point, payload, turn.scope()), Step::done);
	}

}
