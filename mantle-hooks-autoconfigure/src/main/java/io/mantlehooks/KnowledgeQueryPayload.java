package io.mantlehooks;

import java.util.Map;

/**
 * Payload of the knowledge-query point: a search about to run against a vector store or
 * document retriever. A modify hook may change {@code query} only.
 *
 * @param query mutable: the search text
 * @param senderId engine-owned: the conversation or user id of the turn
 * @param call engine-owned: telephony or session metadata, empty when absent
 * @param channel engine-owned: the channel name and front-end metadata
 */
public record KnowledgeQueryPayload(String query, String senderId, Map<String, Object> call,
		Channel channel) implements HookPayload {

	/**
	 * Create the payload: a {@code null} string becomes empty, a {@code null} channel
	 * {@link Channel#none()}, and the maps and lists are copied.
	 * @param query mutable: the search text
	 * @param senderId engine-owned: the conversation or user id of the turn
	 * @param call engine-owned: telephony or session metadata, empty when absent
	 * @param channel engine-owned: the channel name and front-end metadata
	 */
	public KnowledgeQueryPayload {
		query = (query != null) ? query : "";
		senderId = (senderId != null) ? senderId : "";
		call = JsonValues.copyMap(call);
		channel = (channel != null) ? channel : Channel.none();
	}

	/**
	 * Return a copy with the given query.
	 * @param query the new search text
	 * @return the new payload
	 */
	public KnowledgeQueryPayload withQuery(String query) {
		return new KnowledgeQueryPayload(query, this.senderId, this.call, this.channel);
	}

}
