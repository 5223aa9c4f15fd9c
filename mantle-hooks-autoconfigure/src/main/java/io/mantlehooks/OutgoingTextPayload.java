package io.mantlehooks;

import java.util.Map;

/**
 * Payload of the outgoing-text point: a completed reply about to reach the user (the
 * final answer, and rejection or error fallbacks). A modify hook may change {@code text}
 * only; the rewrite is what the user receives and what chat memory stores.
 *
 * @param text mutable: the completed reply
 * @param isVoice whether the current turn uses a voice channel
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 * @param segment engine-owned: which sentence of a streamed reply this is, 0-based; 0 for
 * a whole reply
 * @param finalSegment engine-owned: whether this is the reply's last segment; always
 * {@code true} for a whole reply
 */
public record OutgoingTextPayload(String text, boolean isVoice, String senderId, Map<String, Object> call,
		Channel channel, int segment, boolean finalSegment) implements HookPayload {

	/**
	 * Create the payload of a whole reply.
	 * @param text the completed reply
	 * @param isVoice whether the current turn uses a voice channel
	 * @param senderId the conversation or user id of the turn
	 * @param call telephony or session metadata
	 * @param channel the channel name and front-end metadata
	 */
	public OutgoingTextPayload(String text, boolean isVoice, String senderId, Map<String, Object> call,
			Channel channel) {
		this(text, isVoice, senderId, call, channel, 0, true);
	}

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param text mutable: the completed reply
	 * @param isVoice whether the current turn uses a voice channel
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 * @param segment engine-owned: which sentence of a streamed reply this is, 0-based; 0
	 * for a whole reply
	 * @param finalSegment engine-owned: whether this is the reply's last segment; always
	 * {@code true} for a whole reply
	 */
	public OutgoingTextPayload {
		text = (text != null) ? text : "";
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
		segment = Math.max(segment, 0);
	}

	/**
	 * Return a copy with the given text.
	 * @param text the new text
	 * @return the new payload
	 */
	public OutgoingTextPayload withText(String text) {
		return new OutgoingTextPayload(text, this.isVoice, this.senderId, this.call, this.channel, this.segment,
				this.finalSegment);
	}

}
