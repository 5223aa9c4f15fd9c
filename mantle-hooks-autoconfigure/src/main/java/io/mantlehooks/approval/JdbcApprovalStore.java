package io.mantlehooks.approval;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.Assert;

/**
 * Paused batches in a database table ({@code mantle_approvals}; the starter creates it
 * with {@code mantle.hooks.jdbc.initialize-schema}), shared by every instance of the
 * application. A claim is one conditional update, so of two instances approving the same
 * batch at once, one gets it.
 */
public final class JdbcApprovalStore implements ApprovalStore {

	private static final String PENDING = "PENDING";

	private static final String CLAIMED = "CLAIMED";

	private final JdbcClient jdbc;

	/**
	 * Create a store.
	 * @param dataSource the database
	 */
	public JdbcApprovalStore(DataSource dataSource) {
		this(dataSource, null);
	}

	/**
	 * Create a store whose statements time out.
	 * @param dataSource the database
	 * @param queryTimeout the JDBC query timeout of every statement (JDBC counts whole
	 * seconds: rounded up), {@code null} for the driver's default
	 */
	public JdbcApprovalStore(DataSource dataSource, @Nullable Duration queryTimeout) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		JdbcTemplate template = new JdbcTemplate(dataSource);
		if (queryTimeout != null) {
			template.setQueryTimeout(
					(int) Math.min(Integer.MAX_VALUE, Math.max(1, (queryTimeout.toMillis() + 999) / 1000)));
		}
		this.jdbc = JdbcClient.create(template);
	}

	@Override
	public void save(PendingApproval approval) {
		Assert.notNull(approval, "'approval' must not be null");
		// what expired before this batch was made can no longer be claimed: drop it
		this.jdbc.sql("DELETE FROM mantle_approvals WHERE expires_at < ?")
			.param(Timestamp.from(approval.createdAt()))
			.update();
		this.jdbc
			.sql("INSERT INTO mantle_approvals (id, conversation_id, sender_id, channel, state, batch, "
					+ "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
			.params(approval.id(), approval.conversationId(), approval.senderId(), approval.channel(), PENDING,
					approval.batch(), Timestamp.from(approval.createdAt()), Timestamp.from(approval.expiresAt()))
			.update();
	}

	@Override
	public Optional<PendingApproval> claim(String id, String conversationId, Instant now) {
		int claimed = this.jdbc
			.sql("UPDATE mantle_approvals SET state = ?, claimed_at = ? WHERE id = ? AND conversation_id = ? "
					+ "AND state = ? AND expires_at > ?")
			.params(CLAIMED, Timestamp.from(now), id, conversationId, PENDING, Timestamp.from(now))
			.update();
		if (claimed != 1) {
			return Optional.empty();
		}
		return select("WHERE id = ?", id);
	}

	@Override
	public Optional<PendingApproval> find(String id, Instant now) {
		return select("WHERE id = ? AND state = ? AND expires_at > ?", id, PENDING, Timestamp.from(now));
	}

	private Optional<PendingApproval> select(String where, Object... params) {
		return this.jdbc
			.sql("SELECT id, conversation_id, sender_id, channel, created_at, expires_at, batch FROM mantle_approvals "
					+ where)
			.params(params)
			.query((rs, row) -> new PendingApproval(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
					rs.getTimestamp(5).toInstant(), rs.getTimestamp(6).toInstant(), rs.getString(7)))
			.optional();
	}

	@Override
	public void delete(String id) {
		this.jdbc.sql("DELETE FROM mantle_approvals WHERE id = ?").param(id).update();
	}

}
