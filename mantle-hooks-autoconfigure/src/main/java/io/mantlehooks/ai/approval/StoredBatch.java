package io.mantlehooks.ai.approval;

import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;

/**
 * A tool-call batch paused for approval: what the turn had sent the model, the model's
 * response with the calls as the tool-call hooks left them, each call's MCP metadata, and
 * the model call's number in the turn. Enough to run the calls later, on any instance,
 * without running the tool-call hooks again, and to go on with the turn.
 *
 * @param history the messages of the request the model answered with the calls
 * @param output the model's response, its tool calls as the hooks left them
 * @param metadata each call's MCP metadata, by position
 * @param iteration the number of the model call that asked for the calls
 */
public record StoredBatch(List<Message> history, AssistantMessage output, List<Map<String, Object>> metadata,
		int iteration) {

	public StoredBatch {
		history = List.copyOf(history);
		metadata = List.copyOf(metadata);
	}

}
