package io.mantlehooks;

import java.util.Map;

/**
 * Payload of the incoming-message point: the user's text for this turn, before anything
 * else runs. A modify hook may change {@code text} only; the rewrite is what the rest of
 * the turn and chat memory see.
 *
 * @param text mutable: the user's text
 * @param messageId the channel's message id, {@code ""} when absent
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record IncomingMessagePayload(String text, String messageId, String senderId, Map<String, Object> call,
		Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param text mutable: the user's text
	 * @param messageId the channel's message id, {@code ""} when absent
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public IncomingMessagePayload {
		text = (text != null) ? text : "";
		messageId = (messageId != null) ? messageId : "";
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy with the given text.
	 * @param text the new text
	 * @return the new payload
	 */
	public IncomingMessagePayload withText(String text) {
		return new IncomingMessagePayload(text, this.messageId, this.senderId, this.call, this.channel);
	}

}
