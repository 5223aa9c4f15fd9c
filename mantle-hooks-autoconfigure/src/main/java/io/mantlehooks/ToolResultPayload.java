package io.mantlehooks;

import java.util.Map;

/**
 * Payload of the tool-result point: what a dispatched tool returned. A modify hook may
 * change {@code arguments}, {@code value} and {@code isError}; the rewrite is what is
 * replayed to the model and kept in memory.
 *
 * @param toolName the tool that ran
 * @param arguments mutable: the arguments used, as persisted and replayed
 * @param value mutable: the result replayed to the model
 * @param isError mutable: whether the result is treated as an error
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record ToolResultPayload(String toolName, Map<String, Object> arguments, String value, boolean isError,
		String senderId, Map<String, Object> call, Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param toolName the tool that ran
	 * @param arguments mutable: the arguments used, as persisted and replayed
	 * @param value mutable: the result replayed to the model
	 * @param isError mutable: whether the result is treated as an error
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public ToolResultPayload {
		toolName = (toolName != null) ? toolName : "";
		arguments = JsonValues.copyMap(arguments);
		value = (value != null) ? value : "";
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy with the given arguments.
	 * @param arguments the arguments to persist and replay
	 * @return the new payload
	 */
	public ToolResultPayload withArguments(Map<String, Object> arguments) {
		return new ToolResultPayload(this.toolName, arguments, this.value, this.isError, this.senderId, this.call,
				this.channel);
	}

	/**
	 * Return a copy with the given value.
	 * @param value the result to replay to the model
	 * @return the new payload
	 */
	public ToolResultPayload withValue(String value) {
		return new ToolResultPayload(this.toolName, this.arguments, value, this.isError, this.senderId, this.call,
				this.channel);
	}

	/**
	 * Return a copy with the given error flag.
	 * @param isError whether the result is an error
	 * @return the new payload
	 */
	public ToolResultPayload withIsError(boolean isError) {
		return new ToolResultPayload(this.toolName, this.arguments, this.value, isError, this.senderId, this.call,
				this.channel);
	}

}
