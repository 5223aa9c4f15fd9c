package io.mantlehooks.ai.tool;

import java.util.List;
import java.util.Map;

import io.mantlehooks.ToolCallPayload;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * What the tool loop does after a tool-call batch.
 */
public sealed interface BatchOutcome {

	/**
	 * The tools ran: call the model again with this history.
	 *
	 * @param history the turn's history with the calls and their (hooked) results
	 */
	record Next(List<Message> history) implements BatchOutcome {
	}

	/**
	 * The tools ran and return directly: answer with their results.
	 *
	 * @param result the execution result
	 */
	record Direct(ToolExecutionResult result) implements BatchOutcome {
	}

	/**
	 * A tool-call hook asked for another try: nothing ran, the batch and its text are
	 * discarded, the model is called again with the feedback.
	 *
	 * @param feedback the note for the next model request
	 */
	record Retry(String feedback) implements BatchOutcome {
	}

	/**
	 * Spring AI's tool-call limit was reached: answer with its generation.
	 *
	 * @param generation the limit's reply
	 */
	record Limit(Generation generation) implements BatchOutcome {
	}

	/**
	 * A call of the batch needs a person's approval: nothing ran; the batch is to be
	 * stored and the turn to end with the approval question.
	 *
	 * @param history the messages of the request the model answered with the calls
	 * @param output the model's response, its calls as the tool-call hooks left them
	 * (arguments as compact JSON: what the question shows and what runs)
	 * @param metadata each call's MCP metadata, by position
	 * @param call the first call that needs approval
	 * @param refusals each call's refusal by position, {@code null} for a call that runs
	 * if approved
	 */
	record AwaitingApproval(List<Message> history, AssistantMessage output, List<Map<String, Object>> metadata,
			ToolCallPayload call, List<@Nullable String> refusals) implements BatchOutcome {
	}

	/**
	 * Fail closed: nothing ran, the user gets the tool-call error reply.
	 *
	 * @param reason why, for logs and {@code mantle.reason}
	 */
	record Closed(String reason) implements BatchOutcome {
	}

}
