package io.mantlehooks;

import java.util.List;

import io.mantlehooks.transcript.InMemoryTranscriptStore;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;

/**
 * An in-memory transcript whose writes a test can hold up, as a slow database would: each
 * entry waits in {@link #hold(TranscriptEntry)} before it is stored. Reads and deletes
 * are not held.
 */
public abstract class HeldTranscriptStore implements TranscriptStore {

	private final TranscriptStore entries = new InMemoryTranscriptStore();

	/**
	 * Called on the writing thread before the entry is stored.
	 * @param entry the entry about to be stored
	 */
	protected abstract void hold(TranscriptEntry entry);

	@Override
	public final void append(TranscriptEntry entry) {
		hold(entry);
		this.entries.append(entry);
	}

	@Override
	public final List<TranscriptEntry> find(String conversationId) {
		return this.entries.find(conversationId);
	}

	@Override
	public final void delete(String conversationId) {
		this.entries.delete(conversationId);
	}

}
