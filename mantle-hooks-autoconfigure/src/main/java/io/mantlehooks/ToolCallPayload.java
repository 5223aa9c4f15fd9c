package io.mantlehooks;

import java.util.Map;

/**
 * Payload of the tool-call point: one call of a model's tool-call batch, before any tool
 * in the batch runs. A modify hook may change {@code toolName} (to another offered tool),
 * {@code arguments}, {@code headers} and {@code metadata}. The call's id and type belong
 * to the model and are not part of the payload.
 *
 * @param toolName mutable: the tool about to run
 * @param arguments mutable: the tool arguments, deeply unmodifiable
 * @param headers mutable: headers for the call, unmodifiable
 * @param metadata mutable: sent only to MCP tools as {@code _meta} on this one call,
 * never as an argument; dropped for local tools; observers always see it empty
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record ToolCallPayload(String toolName, Map<String, Object> arguments, Map<String, String> headers,
		Map<String, Object> metadata, String senderId, Map<String, Object> call,
		Channel channel) implements HookPayload {

	public ToolCallPayload {
		toolName = (toolName != null) ? toolName : "";
		arguments = JsonValues.copyMap(arguments);
		headers = JsonValues.copyStringMap(headers);
		metadata = JsonValues.copyMap(metadata);
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy that calls the given tool.
	 * @param toolName the name of an offered tool
	 * @return the new payload
	 */
	public ToolCallPayload withToolName(String toolName) {
		return new ToolCallPayload(toolName, this.arguments, this.headers, this.metadata, this.senderId, this.call,
				this.channel);
	}

	/**
	 * Return a copy with the given arguments.
	 * @param arguments the new arguments
	 * @return the new payload
	 */
	public ToolCallPayload withArguments(Map<String, Object> arguments) {
		return new ToolCallPayload(this.toolName, arguments, this.headers, this.metadata, this.senderId, this.call,
				this.channel);
	}

	/**
	 * Return a copy with the given headers.
	 * @param headers the new headers
	 * @return the new payload
	 */
	public ToolCallPayload withHeaders(Map<String, String> headers) {
		return new ToolCallPayload(this.toolName, this.arguments, headers, this.metadata, this.senderId, this.call,
				this.channel);
	}

	/**
	 * Return a copy with the given MCP metadata.
	 * @param metadata the JSON-serializable metadata for the MCP {@code _meta} of this
	 * call
	 * @return the new payload
	 */
	public ToolCallPayload withMetadata(Map<String, Object> metadata) {
		return new ToolCallPayload(this.toolName, this.arguments, this.headers, metadata, this.senderId, this.call,
				this.channel);
	}

}
