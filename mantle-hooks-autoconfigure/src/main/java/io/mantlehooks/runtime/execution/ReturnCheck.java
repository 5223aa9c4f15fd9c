package io.mantlehooks.runtime.execution;

import io.mantlehooks.HookPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ToolCallPayload;
import org.jspecify.annotations.Nullable;

/**
 * What makes a payload a modify hook returned, of the right type, still unusable: a model
 * setting a provider would reject or misread, or a tool-call refusal the model cannot
 * read (blank, or longer than {@value ToolCallPayload#MAX_REFUSAL_LENGTH} characters).
 * (Identity that differs from the input, a payload of another turn included, is not a
 * problem: the identity wall restores it, as the specification requires.)
 */
final class ReturnCheck {

	private ReturnCheck() {
	}

	/**
	 * Return why the payload cannot be used, or {@code null} when it can.
	 */
	static @Nullable String problem(HookPayload returned) {
		if (returned instanceof ModelRequestPayload request) {
			return settingsProblem(request.modelSettings());
		}
		if (returned instanceof ToolCallPayload call && call.refusal() != null) {
			return refusalProblem(call.refusal());
		}
		return null;
	}

	/**
	 * A refusal is what the model reads in place of the tool's result: a blank one tells
	 * it nothing, and one of unbounded length would let a hook flood the context.
	 */
	private static @Nullable String refusalProblem(String refusal) {
		if (refusal.isBlank()) {
			return "a blank tool-call refusal (the model would read no reason)";
		}
		if (refusal.length() > ToolCallPayload.MAX_REFUSAL_LENGTH) {
			return "a tool-call refusal of " + refusal.length() + " characters (at most "
					+ ToolCallPayload.MAX_REFUSAL_LENGTH + ")";
		}
		return null;
	}

	/**
	 * Values a provider would reject or misread: not finite, or outside the range every
	 * common provider accepts.
	 */
	static @Nullable String settingsProblem(ModelSettings settings) {
		String problem = range("temperature", settings.temperature(), 0, 2);
		problem = (problem != null) ? problem : range("topP", settings.topP(), 0, 1);
		problem = (problem != null) ? problem : range("presencePenalty", settings.presencePenalty(), -2, 2);
		problem = (problem != null) ? problem : range("frequencyPenalty", settings.frequencyPenalty(), -2, 2);
		if (problem == null && settings.maxTokens() != null && settings.maxTokens() < 1) {
			problem = "model setting maxTokens=" + settings.maxTokens() + " (must be at least 1)";
		}
		return problem;
	}

	private static @Nullable String range(String name, @Nullable Double value, double min, double max) {
		if (value == null) {
			return null;
		}
		if (value.isNaN() || value.isInfinite() || value < min || value > max) {
			return "model setting " + name + "=" + value + " (must be between " + min + " and " + max + ")";
		}
		return null;
	}

}
