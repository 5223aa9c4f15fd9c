package io.mantlehooks;

import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.Message;

/**
 * Payload of the model-request point: the final prompt of one model call (one per loop
 * iteration), before the provider call. A modify hook may change {@code messages} (sent
 * as they are, without validation) and {@code modelSettings} (the allowlisted overrides).
 *
 * @param messages mutable: the messages about to be sent, unmodifiable
 * @param modelSettings mutable: per-call overrides; starts {@link ModelSettings#empty()}
 * @param toolNames the names of the offered tools, read-only
 * @param iteration the model call's number in this turn, starting at 1
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record ModelRequestPayload(List<Message> messages, ModelSettings modelSettings, List<String> toolNames,
		int iteration, String senderId, Map<String, Object> call, Channel channel) implements HookPayload {

	public ModelRequestPayload {
		messages = JsonValues.copyList(messages);
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
	 * Return a copy whose messages are copies too: a message's metadata map is mutable,
	 * so a hook that changes it must not reach the turn or another hook. The engine hands
	 * every hook such a copy.
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
