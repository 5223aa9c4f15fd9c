package io.mantlehooks.transcript;

import java.sql.Timestamp;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.Assert;

/**
 * A transcript in a database table ({@code mantle_transcript}; the starter creates it
 * with {@code mantle.hooks.jdbc.initialize-schema}), shared by every instance of the
 * application.
 */
public final class JdbcTranscriptStore implements TranscriptStore {

	private final JdbcClient jdbc;

	/**
	 * Create a store.
	 * @param dataSource the database
	 */
	public JdbcTranscriptStore(DataSource dataSource) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		this.jdbc = JdbcClient.create(dataSource);
	}

	@Override
	public void append(TranscriptEntry entry) {
		Assert.notNull(entry, "'entry' must not be null");
		this.jdbc
			.sql("INSERT INTO mantle_transcript (conversation_id, turn_id, sender_id, channel, role, text, "
					+ "discarded, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
			.params(entry.conversationId(), entry.turnId(), entry.senderId(), entry.channel(), entry.role().name(),
					entry.text(), entry.discarded(), entry.outcome(), Timestamp.from(entry.timestamp()))
			.update();
	}

	@Override
	public List<TranscriptEntry> find(String conversationId) {
		// same instant: the user's message (role USER) before the reply (ASSISTANT)
		return this.jdbc
			.sql("SELECT conversation_id, turn_id, sender_id, channel, role, text, discarded, outcome, created_at "
					+ "FROM mantle_transcript WHERE conversation_id = ? ORDER BY created_at, role DESC, id")
			.param(conversationId)
			.query((rs, row) -> new TranscriptEntry(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
					TranscriptRole.valueOf(rs.getString(5)), rs.getString(6), rs.getBoolean(7), rs.getString(8),
					rs.getTimestamp(9).toInstant()))
			.list();
	}

	@Override
	public void delete(String conversationId) {
		this.jdbc.sql("DELETE FROM mantle_transcript WHERE conversation_id = ?").param(conversationId).update();
	}

}
