package io.mantlehooks;

import java.util.Map;

import org.springframework.util.Assert;

/**
 * Payload of the turn-finished point (observe only): a chat turn ended. Always pairs with
 * the {@link TurnStartedPayload} of the same {@code turnId}.
 *
 * @param status how the turn ended
 * @param turnId the id of this turn, the same as in the turn-started payload
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record TurnFinishedPayload(TurnStatus status, String turnId, String senderId, Map<String, Object> call,
		Channel channel) implements HookPayload {

	/**
	 * Create the payload: the status is required; a {@code null} string becomes empty, a
	 * {@code null} channel {@link Channel#none()}, and the maps are copied.
	 * @param status how the turn ended
	 * @param turnId the id of this turn, the same as in the turn-started payload
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public TurnFinishedPayload {
		Assert.notNull(status, "'status' must not be null");
		turnId = (turnId != null) ? turnId : "";
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

}
