package io.mantlehooks.ai.approval;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;

/**
 * A tool-call batch paused for approval: what the turn had sent the model, the model's
 * response with the calls as the tool-call hooks left them, each call's MCP metadata and
 * refusal, and the model call's number in the turn. Enough to run the calls later, on any
 * instance, without running the tool-call hooks again, and to go on with the turn.
 *
 * @param history the messages of the request the model answered with the calls
 * @param output the model's response, its tool calls as the hooks left them
 * @param metadata each call's MCP metadata, by position
 * @param iteration the number of the model call that asked for the calls
 * @param refusals each call's refusal by position, {@code null} for a call that runs if
 * approved; empty when no call was refused
 */
public record StoredBatch(List<Message> history, AssistantMessage output, List<Map<String, Object>> metadata,
		int iteration, List<@Nullable String> refusals) {

	public StoredBatch {
		history = List.copyOf(history);
		metadata = List.copyOf(metadata);
		// List.copyOf takes no nulls, and a call that runs has none
		refusals = (refusals != null) ? Collections.unmodifiableList(new ArrayList<>(refusals)) : List.of();
	}

	/**
	 * Create a batch in which no call was refused.
	 * @param history the messages of the request the model answered with the calls
	 * @param output the model's response, its tool calls as the hooks left them
	 * @param metadata each call's MCP metadata, by position
	 * @param iteration the number of the model call that asked for the calls
	 */
	public StoredBatch(List<Message> history, AssistantMessage output, List<Map<String, Object>> metadata,
			int iteration) {
		this(history, output, metadata, iteration, List.of());
	}

	/**
	 * Return the refusal of the call at a position.
	 * @param index the call's position
	 * @return the refusal, {@code null} when the call runs if approved
	 */
	public @Nullable String refusal(int index) {
		return (index < this.refusals.size()) ? this.refusals.get(index) : null;
	}

}
