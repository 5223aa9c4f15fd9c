package io.mantlehooks.approval;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.util.Assert;

/**
 * Paused batches in this JVM's memory: for development and single-instance applications;
 * gone at restart, and an approval sent to another instance finds nothing.
 */
public final class InMemoryApprovalStore implements ApprovalStore {

	private final Map<String, PendingApproval> pending = new ConcurrentHashMap<>();

	@Override
	public void save(PendingApproval approval) {
		Assert.notNull(approval, "'approval' must not be null");
		this.pending.values().removeIf((stale) -> stale.expiresAt().isBefore(approval.createdAt()));
		this.pending.put(approval.id(), approval);
	}

	@Override
	public Optional<PendingApproval> claim(String id, String conversationId, Instant now) {
		PendingApproval[] claimed = new PendingApproval[1];
		// one atomic step: the batch leaves only for a claim of its own conversation
		this.pending.computeIfPresent(id, (key, approval) -> {
			if (!approval.conversationId().equals(conversationId)) {
				return approval;
			}
			claimed[0] = approval;
			return null;
		});
		if (claimed[0] == null || !claimed[0].expiresAt().isAfter(now)) {
			return Optional.empty();
		}
		return Optional.of(claimed[0]);
	}

	@Override
	public Optional<PendingApproval> find(String id, Instant now) {
		return Optional.ofNullable(this.pending.get(id)).filter((approval) -> approval.expiresAt().isAfter(now));
	}

	@Override
	public void delete(String id) {
		this.pending.remove(id);
	}

}
