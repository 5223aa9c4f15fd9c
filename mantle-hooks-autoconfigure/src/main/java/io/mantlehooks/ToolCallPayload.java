package io.mantlehooks;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Payload of the tool-call point: one call of a model's tool-call batch, before any tool
 * in the batch runs. A modify hook may change {@code toolName} (to another offered tool),
 * {@code arguments}, {@code headers} and {@code metadata}, or refuse the call
 * ({@link #withRefusal(String)}). The call's id and type belong to the model and are not
 * part of the payload.
 *
 * @param toolName mutable: the tool about to run
 * @param arguments mutable: the tool arguments, deeply unmodifiable; empty when the model
 * sent none, or text that is not one JSON object (the engine then refuses the call unless
 * a modify hook gives it at least one argument)
 * @param headers mutable: headers for the call, unmodifiable
 * @param metadata mutable: sent only to MCP tools as {@code _meta} on this one call,
 * never as an argument; dropped for local tools; observers always see it empty
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 * @param refusal mutable: {@code null} to run the call; otherwise the call does not run
 * (nor waits for approval), and the model reads this text as the call's (error) result;
 * the other calls of the batch run
 */
public record ToolCallPayload(String toolName, Map<String, Object> arguments, Map<String, String> headers,
		Map<String, Object> metadata, String senderId, Map<String, Object> call, Channel channel,
		@Nullable String refusal) implements HookPayload {

	/**
	 * The longest refusal a hook may return; a longer one is an invalid return.
	 */
	public static final int MAX_REFUSAL_LENGTH = 2_000;

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param toolName mutable: the tool about to run
	 * @param arguments mutable: the tool arguments, deeply unmodifiable; empty when the
	 * model sent none, or text that is not one JSON object (the engine then refuses the
	 * call unless a modify hook gives it at least one argument)
	 * @param headers mutable: headers for the call, unmodifiable
	 * @param metadata mutable: sent only to MCP tools as {@code _meta} on this one call,
	 * never as an argument; dropped for local tools; observers always see it empty
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 * @param refusal mutable: {@code null} to run the call; otherwise the call does not
	 * run (nor waits for approval), and the model reads this text as the call's (error)
	 * result; the other calls of the batch run
	 */
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
	 * Create a payload for a call that is not refused.
	 * @param toolName the tool about to run
	 * @param arguments the tool arguments
	 * @param headers headers for the call
	 * @param metadata the MCP {@code _meta} of this call
	 * @param senderId the conversation or user id of the turn
	 * @param call telephony or session metadata
	 * @param channel the channel name and front-end metadata
	 */
	public ToolCallPayload(String toolName, Map<String, Object> arguments, Map<String, String> headers,
			Map<String, Object> metadata, String senderId, Map<String, Object> call, Channel channel) {
		this(toolName, arguments, headers, metadata, senderId, call, channel, null);
	}

	/**
	 * Return a copy that calls the given tool.
	 * @param toolName the name of an offered tool
	 * @return the new payload
	 */
	public ToolCallPayload withToolName(String toolName) {
		return new ToolCallPayload(toolName, this.arguments, this.headers, this.metadata, this.senderId, this.call,
				this.channel, this.refusal);
	}

	/**
	 * Return a copy with the given arguments.
	 * @param arguments the new arguments
	 * @return the new payload
	 */
	public ToolCallPayload withArguments(Map<String, Object> arguments) {
		return new ToolCallPayload(this.toolName, arguments, this.headers, this.metadata, this.senderId, this.call,
				this.channel, this.refusal);
	}

	/**
	 * Return a copy with the given headers.
	 * @param headers the new headers
	 * @return the new payload
	 */
	public ToolCallPayload withHeaders(Map<String, String> headers) {
		return new ToolCallPayload(this.toolName, this.arguments, headers, this.metadata, this.senderId, this.call,
				this.channel, this.refusal);
	}

	/**
	 * Return a copy with the given MCP metadata.
	 * @param metadata the JSON-serializable metadata for the MCP {@code _meta} of this
	 * call
	 * @return the new payload
	 */
	public ToolCallPayload withMetadata(Map<String, Object> metadata) {
		return new ToolCallPayload(this.toolName, this.arguments, this.headers, metadata, this.senderId, this.call,
				this.channel, this.refusal);
	}

	/**
	 * Return a copy that refuses this one call: its tool does not run and no approval is
	 * asked for it; the model reads {@code message} as the call's result, marked as an
	 * error, in the call's place in the batch; the other calls of the batch run as usual.
	 * Tool-result hooks see the refused call like a failed tool ({@code isError} set, the
	 * message as value). A message that is blank or longer than
	 * {@value #MAX_REFUSAL_LENGTH} characters is an invalid return: the point's fail
	 * policy applies (nothing in the batch runs).
	 * @param message what the model reads instead of the tool's result, for example why
	 * the call was not made
	 * @return the new payload
	 */
	public ToolCallPayload withRefusal(String message) {
		Assert.notNull(message, "'message' must not be null");
		return new ToolCallPayload(this.toolName, this.arguments, this.headers, this.metadata, this.senderId, this.call,
				this.channel, message);
	}

}
