package io.mantlehooks.ai.chat;

import java.util.EnumSet;
import java.util.Set;

import io.mantlehooks.HookPoint;

/**
 * Which hook advisors a {@code ChatClient} needs for the points that have hooks. No
 * hooks, no advisors: the chain is exactly Spring AI's. Hooks only at the turn's edges
 * (incoming message, turn started/finished) need only the turn advisor. Hooks on the
 * model call, tool batches, knowledge searches or the reply need the tool loop and
 * model-call advisors too: the loop carries the turn's identity to tools and to every
 * round's retrieval, also in streamed turns.
 */
enum AdvisorPlan {

	/** No hook anywhere: nothing is added. */
	NONE,

	/** The turn advisor only; Spring AI's own tool advisor stays. */
	TURN,

	/** The turn, tool-loop and model-call advisors. */
	FULL;

	private static final Set<HookPoint> LOOP_POINTS = EnumSet.of(HookPoint.MODEL_REQUEST, HookPoint.MODEL_RESPONSE,
			HookPoint.TOOL_CALL, HookPoint.TOOL_RESULT, HookPoint.KNOWLEDGE_QUERY, HookPoint.KNOWLEDGE_RESULTS,
			HookPoint.OUTGOING_TEXT);

	static AdvisorPlan of(Set<HookPoint> pointsWithHooks) {
		if (pointsWithHooks.isEmpty()) {
			return NONE;
		}
		for (HookPoint point : pointsWithHooks) {
			if (LOOP_POINTS.contains(point)) {
				return FULL;
			}
		}
		return TURN;
	}

	/**
	 * Return whether a chain built for this plan runs every hook of the other.
	 */
	boolean covers(AdvisorPlan other) {
		return ordinal() >= other.ordinal();
	}

	/**
	 * Return the points whose hooks a chain built for this plan would not run.
	 */
	Set<HookPoint> missing(Set<HookPoint> pointsWithHooks) {
		Set<HookPoint> missing = EnumSet.noneOf(HookPoint.class);
		for (HookPoint point : pointsWithHooks) {
			AdvisorPlan needed = of(Set.of(point));
			if (!covers(needed)) {
				missing.add(point);
			}
		}
		return missing;
	}

}
