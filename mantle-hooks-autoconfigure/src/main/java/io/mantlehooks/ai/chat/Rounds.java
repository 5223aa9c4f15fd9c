package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.mantlehooks.ai.turn.Turn;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;

/**
 * What the tool loop tells the model-call advisor about the next round, downward in the
 * request context: which model call of the turn it is, and the retry feedback that
 * belongs to that call only. Absent keys mean the first call, without feedback.
 */
final class Rounds {

	/** Request-context key: the model call's number in the turn (an {@code Integer}). */
	static final String ITERATION = "mantle.iteration";

	/** Request-context key: the retry feedback for this model call only. */
	static final String FEEDBACK = "mantle.feedback";

	/** Every key the engine uses internally; none is part of a final response. */
	static final Set<String> INTERNAL_KEYS = Set.of(Turn.CONTEXT_KEY, ITERATION, FEEDBACK, RoundReport.KEY, Resume.KEY,
			ToolAdvisorTakeOver.KEY);

	private Rounds() {
	}

	static int iteration(ChatClientRequest request) {
		return (request.context().get(ITERATION) instanceof Integer iteration) ? iteration : 1;
	}

	static @Nullable String feedback(ChatClientRequest request) {
		return (request.context().get(FEEDBACK) instanceof String feedback) ? feedback : null;
	}

	/**
	 * Return the context of a round: the turn's, plus the iteration and feedback when
	 * they differ from a first call.
	 */
	static Map<String, @Nullable Object> context(Map<String, @Nullable Object> turnContext, int iteration,
			@Nullable String feedback) {
		if (iteration == 1 && feedback == null) {
			return turnContext;
		}
		Map<String, @Nullable Object> context = new HashMap<>(turnContext);
		context.put(ITERATION, iteration);
		if (feedback != null) {
			context.put(FEEDBACK, feedback);
		}
		else {
			context.remove(FEEDBACK);
		}
		return context;
	}

}
