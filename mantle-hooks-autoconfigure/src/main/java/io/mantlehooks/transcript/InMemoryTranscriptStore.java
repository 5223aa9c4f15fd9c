package io.mantlehooks.transcript;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.util.Assert;

/**
 * A transcript in this JVM's memory: for development and single-instance applications;
 * gone at restart.
 */
public final class InMemoryTranscriptStore implements TranscriptStore {

	/** Oldest first; at the same instant, the user's message before the reply. */
	static final Comparator<TranscriptEntry> ORDER = Comparator.comparing(TranscriptEntry::timestamp)
		.thenComparing(TranscriptEntry::role);

	private final Map<String, List<TranscriptEntry>> conversations = new ConcurrentHashMap<>();

	@Override
	public void append(TranscriptEntry entry) {
		Assert.notNull(entry, "'entry' must not be null");
		List<TranscriptEntry> entries = this.conversations.computeIfAbsent(entry.conversationId(),
				(id) -> new ArrayList<>());
		synchronized (entries) {
			entries.add(entry);
		}
	}

	@Override
	public List<TranscriptEntry> find(String conversationId) {
		List<TranscriptEntry> entries = this.conversations.get(conversationId);
		if (entries == null) {
			return List.of();
		}
		synchronized (entries) {
			return entries.stream().sorted(ORDER).toList();
		}
	}

	@Override
	public void delete(String conversationId) {
		this.conversations.remove(conversationId);
	}

}
