package io.mantlehooks;

import java.util.List;
import java.util.Map;

/**
 * Payload of the knowledge-results point: the passages a search returned, before they go
 * back to the model. A modify hook may filter, reorder, rewrite or empty
 * {@code passages}; {@code query} is read-only here.
 *
 * @param query the search text that produced the passages
 * @param passages mutable: the retrieved passages, unmodifiable
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record KnowledgeResultsPayload(String query, List<Passage> passages, String senderId, Map<String, Object> call,
		Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param query the search text that produced the passages
	 * @param passages mutable: the retrieved passages, unmodifiable
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public KnowledgeResultsPayload {
		query = (query != null) ? query : "";
		passages = JsonValues.copyList(passages);
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy with the given passages.
	 * @param passages the new passages
	 * @return the new payload
	 */
	public KnowledgeResultsPayload withPassages(List<Passage> passages) {
		return new KnowledgeResultsPayload(this.query, passages, this.senderId, this.call, this.channel);
	}

}
