package io.mantlehooks;

import java.util.Map;

/**
 * Payload of the turn-started point (observe only): a chat turn begins.
 *
 * @param isVoice whether the turn came from a voice channel
 * @param turnId the id of this turn, fresh per turn
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record TurnStartedPayload(boolean isVoice, String turnId, String senderId, Map<String, Object> call,
		Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param isVoice whether the turn came from a voice channel
	 * @param turnId the id of this turn, fresh per turn
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public TurnStartedPayload {
		turnId = (turnId != null) ? turnId : "";
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

}
