package io.mantlehooks.autoconfigure;

import java.time.Instant;
import java.util.Optional;

import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;

/**
 * A database approval store whose every call is bounded by a {@link StoreGuard}. Calls
 * stay synchronous: a batch that could not be saved or claimed in time does not run (the
 * engine answers the turn with a named reply), so an outage costs a turn at most the
 * query timeout, and nothing once the breaker is open.
 */
final class GuardedApprovalStore implements ApprovalStore {

	private final ApprovalStore delegate;

	private final StoreGuard guard;

	GuardedApprovalStore(ApprovalStore delegate, StoreGuard guard) {
		this.delegate = delegate;
		this.guard = guard;
	}

	ApprovalStore delegate() {
		return this.delegate;
	}

	@Override
	public void save(PendingApproval approval) {
		this.guard.run(() -> this.delegate.save(approval));
	}

	@Override
	public Optional<PendingApproval> claim(String id, String conversationId, Instant now) {
		return this.guard.call(() -> this.delegate.claim(id, conversationId, now));
	}

	@Override
	public Optional<PendingApproval> find(String id, Instant now) {
		return this.guard.call(() -> this.delegate.find(id, now));
	}

	@Override
	public void delete(String id) {
		this.guard.run(() -> this.delegate.delete(id));
	}

}
