package io.mantlehooks.transcript;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.Assert;

/**
 * A transcript in a database table ({@code mantle_transcript}; the starter creates it
 * with {@code mantle.hooks.jdbc.initialize-schema}), shared by every instance of the
 * application. Text is kept exactly, U+0000 included (escaped in the table, since
 * PostgreSQL text cannot hold it).
 */
public final class JdbcTranscriptStore implements TranscriptStore {

	private static final char NUL = (char) 0;

	private static final char ESCAPE = (char) 1;

	private final JdbcClient jdbc;

	/**
	 * Create a store.
	 * @param dataSource the database
	 */
	public JdbcTranscriptStore(DataSource dataSource) {
		this(dataSource, null);
	}

	/**
	 * Create a store whose statements time out.
	 * @param dataSource the database
	 * @param queryTimeout the JDBC query timeout of every statement (JDBC counts whole
	 * seconds: rounded up), {@code null} for the driver's default
	 */
	public JdbcTranscriptStore(DataSource dataSource, @Nullable Duration queryTimeout) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		JdbcTemplate template = new JdbcTemplate(dataSource);
		if (queryTimeout != null) {
			template.setQueryTimeout(
					(int) Math.min(Integer.MAX_VALUE, Math.max(1, (queryTimeout.toMillis() + 999) / 1000)));
		}
		this.jdbc = JdbcClient.create(template);
	}

	@Override
	public void append(TranscriptEntry entry) {
		Assert.notNull(entry, "'entry' must not be null");
		this.jdbc
			.sql("INSERT INTO mantle_transcript (conversation_id, turn_id, sender_id, channel, role, text, "
					+ "discarded, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
			.params(encode(entry.conversationId()), entry.turnId(), encode(entry.senderId()), encode(entry.channel()),
					entry.role().name(), encode(entry.text()), entry.discarded(), entry.outcome(),
					Timestamp.from(entry.timestamp()))
			.update();
	}

	@Override
	public List<TranscriptEntry> find(String conversationId) {
		// same instant: the user's message (role USER) before the reply (ASSISTANT)
		return this.jdbc
			.sql("SELECT conversation_id, turn_id, sender_id, channel, role, text, discarded, outcome, created_at "
					+ "FROM mantle_transcript WHERE conversation_id = ? ORDER BY created_at, role DESC, id")
			.param(encode(conversationId))
			.query((rs, row) -> new TranscriptEntry(decode(rs.getString(1)), rs.getString(2), decode(rs.getString(3)),
					decode(rs.getString(4)), TranscriptRole.valueOf(rs.getString(5)), decode(rs.getString(6)),
					rs.getBoolean(7), rs.getString(8), rs.getTimestamp(9).toInstant()))
			.list();
	}

	@Override
	public void delete(String conversationId) {
		this.jdbc.sql("DELETE FROM mantle_transcript WHERE conversation_id = ?").param(encode(conversationId)).update();
	}

	/**
	 * PostgreSQL text cannot hold U+0000, so a text with it is stored escaped: it starts
	 * with U+0001, and in the rest U+0001 then {@code 0} stands for U+0000, U+0001 then
	 * {@code 1} for U+0001. Text without U+0000 that does not start with U+0001 (all text
	 * in practice) is stored as it is, readable with SQL.
	 * @param text the text to store
	 * @return the text as stored
	 */
	static String encode(String text) {
		if (text.indexOf(NUL) < 0 && (text.isEmpty() || text.charAt(0) != ESCAPE)) {
			return text;
		}
		StringBuilder encoded = new StringBuilder(text.length() + 8).append(ESCAPE);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == NUL || c == ESCAPE) {
				encoded.append(ESCAPE).append((c == NUL) ? '0' : '1');
			}
			else {
				encoded.append(c);
			}
		}
		return encoded.toString();
	}

	/**
	 * Return the text {@link #encode} was given.
	 * @param stored the text as stored
	 * @return the original text
	 */
	static String decode(String stored) {
		if (stored.isEmpty() || stored.charAt(0) != ESCAPE) {
			return stored;
		}
		StringBuilder text = new StringBuilder(stored.length());
		for (int i = 1; i < stored.length(); i++) {
			char c = stored.charAt(i);
			if (c == ESCAPE && i + 1 < stored.length()
					&& (stored.charAt(i + 1) == '0' || stored.charAt(i + 1) == '1')) {
				text.append((stored.charAt(++i) == '0') ? NUL : ESCAPE);
			}
			else {
				text.append(c);
			}
		}
		return text.toString();
	}

}
