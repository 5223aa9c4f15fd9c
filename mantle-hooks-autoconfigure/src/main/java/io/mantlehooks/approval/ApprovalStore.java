package io.mantlehooks.approval;

import java.time.Instant;
import java.util.Optional;

/**
 * Where paused tool-call batches wait. {@link #claim} is the one way to take a batch out,
 * and it succeeds once: with several application instances on one database, two approvals
 * of the same batch cannot both run it.
 *
 * @see InMemoryApprovalStore
 * @see JdbcApprovalStore
 */
public interface ApprovalStore {

	/**
	 * Keep a paused batch.
	 * @param approval the batch
	 */
	void save(PendingApproval approval);

	/**
	 * Take a pending batch for approval or denial, atomically: of concurrent claims of
	 * one batch, at most one gets it.
	 * @param id the approval id
	 * @param conversationId the conversation of the claim: a batch is claimed only in the
	 * conversation that paused it
	 * @param now the current time; an expired batch cannot be claimed
	 * @return the batch, empty when there is none with this id in this conversation, it
	 * expired or it was claimed already
	 */
	Optional<PendingApproval> claim(String id, String conversationId, Instant now);

	/**
	 * Look at a batch that still waits, without claiming it (for consoles and tools).
	 * @param id the approval id
	 * @param now the current time
	 * @return the batch, empty when none waits under this id or it expired
	 */
	Optional<PendingApproval> find(String id, Instant now);

	/**
	 * Drop a batch without running it (its approval question never reached the user).
	 * @param id the approval id
	 */
	void delete(String id);

}
