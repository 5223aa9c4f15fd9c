package io.mantlehooks.transcript;

import java.util.List;

/**
 * Where the engine writes the transcript. Implementations must be safe for concurrent
 * use; with several application instances, a shared database.
 *
 * @see InMemoryTranscriptStore
 * @see JdbcTranscriptStore
 */
public interface TranscriptStore {

	/**
	 * Append an entry.
	 * @param entry the entry
	 */
	void append(TranscriptEntry entry);

	/**
	 * Return a conversation's entries, oldest first (by timestamp; a user message before
	 * the reply of the same instant).
	 * @param conversationId the conversation
	 * @return the entries, empty when there are none
	 */
	List<TranscriptEntry> find(String conversationId);

	/**
	 * Delete a conversation's entries.
	 * @param conversationId the conversation
	 */
	void delete(String conversationId);

}
