package io.mantlehooks;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Payload of the model-response point: one provider response, before any text is emitted
 * or tool runs. A modify hook may change {@code text} and {@code toolCalls} (ids and
 * types stay the model's), or throw {@link RetryModel}.
 *
 * @param text mutable: the assistant text, {@code null} when the response has none
 * @param toolCalls mutable: the tool calls, unmodifiable
 * @param latencyMs the provider latency of this response, {@code null} when unknown
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record ModelResponsePayload(@Nullable String text, List<ModelToolCall> toolCalls, @Nullable Long latencyMs,
		String senderId, Map<String, Object> call, Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param text mutable: the assistant text, {@code null} when the response has none
	 * @param toolCalls mutable: the tool calls, unmodifiable
	 * @param latencyMs the provider latency of this response, {@code null} when unknown
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public ModelResponsePayload {
		toolCalls = JsonValues.copyList(toolCalls);
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy with the given text.
	 * @param text the new assistant text, may be {@code null}
	 * @return the new payload
	 */
	public ModelResponsePayload withText(@Nullable String text) {
		return new ModelResponsePayload(text, this.toolCalls, this.latencyMs, this.senderId, this.call, this.channel);
	}

	/**
	 * Return a copy with the given tool calls.
	 * @param toolCalls the new tool calls
	 * @return the new payload
	 */
	public ModelResponsePayload withToolCalls(List<ModelToolCall> toolCalls) {
		return new ModelResponsePayload(this.text, toolCalls, this.latencyMs, this.senderId, this.call, this.channel);
	}

}
