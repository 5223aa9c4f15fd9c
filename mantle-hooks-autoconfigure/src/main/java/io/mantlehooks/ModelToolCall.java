package io.mantlehooks;

import java.util.Map;

/**
 * One tool call in a model response. A modify hook may drop or reorder calls and change
 * {@code toolName} and {@code toolArgs}; {@code id} and {@code type} belong to the model
 * and are restored from its response.
 *
 * @param id engine-owned: the model's tool-call id
 * @param toolName mutable: the tool to call
 * @param toolArgs mutable: the arguments, deeply unmodifiable
 * @param type engine-owned: the provider's call type (usually {@code function})
 */
public record ModelToolCall(String id, String toolName, Map<String, Object> toolArgs, String type) {

	/**
	 * Create a tool call: a {@code null} string becomes empty and the arguments are
	 * copied.
	 * @param id engine-owned: the model's tool-call id
	 * @param toolName mutable: the tool to call
	 * @param toolArgs mutable: the arguments, deeply unmodifiable
	 * @param type engine-owned: the provider's call type (usually {@code function})
	 */
	public ModelToolCall {
		id = (id != null) ? id : "";
		toolName = (toolName != null) ? toolName : "";
		toolArgs = JsonValues.copyMap(toolArgs);
		type = (type != null) ? type : "";
	}

}
