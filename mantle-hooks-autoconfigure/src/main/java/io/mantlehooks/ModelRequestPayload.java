package io.mantlehooks;

import java.util.List;
import java.util.Map;

import io.mantlehooks.message.FrozenMessages;

import org.springframework.ai.chat.messages.Message;

/**
 * Payload of the model-request point: the final prompt of one model call (one per loop
 * iteration), before the provider call. A modify hook may change {@code messages} (sent
 * as they are, without validation) and {@code modelSettings} (the allowlisted overrides).
 *
 * Its messages are frozen: each is an instance of the same Spring AI type with the same
 * content, but its metadata, media, tool calls and tool responses are read-only and
 * changing them fails with an {@link UnsupportedOperationException}. Every hook and
 * observer of the turn shares them; to change a message, build a new one
 * ({@code message.mutate()...build()}) and return {@link #withMessages(List)}. A message
 * is frozen the first time a hook or observer reads it, once for all of them; the
 * provider is sent the messages the turn had, so one that nobody reads is never copied.
 *
 * @param messages mutable: the messages about to be sent, unmodifiable, each one frozen
 * @param modelSettings mutable: per-call overrides; starts {@link ModelSettings#empty()}
 * @param toolNames the names of the offered tools, read-only
 * @param iteration the model call's number in this turn, starting at 1
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record ModelRequestPayload(List<Message> messages, ModelSettings modelSettings, List<String> toolNames,
		int iteration, String senderId, Map<String, Object> call, Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, the maps and lists are copied and the messages frozen.
	 * @param messages mutable: the messages about to be sent, unmodifiable, each one
	 * frozen
	 * @param modelSettings mutable: per-call overrides; starts
	 * {@link ModelSettings#empty()}
	 * @param toolNames the names of the offered tools, read-only
	 * @param iteration the model call's number in this turn, starting at 1
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public ModelRequestPayload {
		// frozen once, when first read, so every hook and observer shares the messages
		// and none can change them in place; an empty list loads no Spring AI class (the
		// runner needs none)
		messages = (messages == null || messages.isEmpty()) ? List.of() : FrozenMessages.freeze(messages);
		modelSettings = (modelSettings != null) ? modelSettings : ModelSettings.empty();
		toolNames = JsonValues.copyList(toolNames);
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy with the given messages.
	 * @param messages the messages to send
	 * @return the new payload
	 */
	public ModelRequestPayload withMessages(List<Message> messages) {
		return new ModelRequestPayload(messages, this.modelSettings, this.toolNames, this.iteration, this.senderId,
				this.call, this.channel);
	}

	/**
	 * Return a copy whose messages are new copies, frozen again. The engine does not need
	 * it: a payload's messages are frozen, so every hook shares them and none can change
	 * them in place. Kept for code that calls it.
	 * @return the new payload
	 */
	public ModelRequestPayload withCopiedMessages() {
		return withMessages(MessageCopies.copy(this.messages));
	}

	/**
	 * Return a copy with the given settings.
	 * @param modelSettings the per-call overrides
	 * @return the new payload
	 */
	public ModelRequestPayload withModelSettings(ModelSettings modelSettings) {
		return new ModelRequestPayload(this.messages, modelSettings, this.toolNames, this.iteration, this.senderId,
				this.call, this.channel);
	}

}
