package io.mantlehooks.ai.tool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.approval.ToolApprovalPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Which tool calls wait for a person ({@code mantle.hooks.approvals.tools} and the
 * {@link ToolApprovalPolicy}), and the paused batches in their {@link ApprovalStore}.
 */
public final class ToolApprovals {

	private static final Log logger = LogFactory.getLog(ToolApprovals.class);

	private final Set<String> tools;

	private final @Nullable ToolApprovalPolicy policy;

	private final ApprovalStore store;

	private final Duration ttl;

	private final Clock clock;

	/**
	 * Create the approvals.
	 * @param tools the tool names whose calls always need approval
	 * @param policy decides for other calls, {@code null} for none
	 * @param store where paused batches wait
	 * @param ttl how long a paused batch can be approved
	 * @param clock the clock
	 */
	public ToolApprovals(Set<String> tools, @Nullable ToolApprovalPolicy policy, ApprovalStore store, Duration ttl,
			Clock clock) {
		Assert.notNull(tools, "'tools' must not be null");
		Assert.notNull(store, "'store' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		Assert.notNull(clock, "'clock' must not be null");
		this.tools = Set.copyOf(tools);
		this.policy = policy;
		this.store = store;
		this.ttl = ttl;
		this.clock = clock;
	}

	/**
	 * Return the first call that needs approval.
	 * @param calls the batch's calls as the tool-call hooks left them
	 * @return the call, {@code null} when the batch may run
	 */
	@Nullable ToolCallPayload firstRequiringApproval(List<ToolCallPayload> calls) {
		for (ToolCallPayload call : calls) {
			if (requiresApproval(call)) {
				return call;
			}
		}
		return null;
	}

	private boolean requiresApproval(ToolCallPayload call) {
		if (this.tools.contains(call.toolName())) {
			return true;
		}
		if (this.policy == null) {
			return false;
		}
		try {
			return this.policy.requiresApproval(call);
		}
		catch (RuntimeException | Error ex) {
			// when in doubt, a person decides
			logger.warn("ToolApprovalPolicy failed for a call of tool '" + call.toolName()
					+ "'; the call waits for approval", ex);
			return true;
		}
	}

	/**
	 * Keep a paused batch.
	 * @param turn the turn that paused it
	 * @param batch the batch
	 * @return its approval id
	 */
	public String pause(Turn turn, StoredBatch batch) {
		Instant now = this.clock.instant();
		String id = UUID.randomUUID().toString();
		this.store.save(new PendingApproval(id, turn.conversationId(), turn.senderId(), turn.channel().name(), now,
				now.plus(this.ttl), StoredBatchCodec.write(batch)));
		return id;
	}

	/**
	 * Take a paused batch to run or decline it.
	 * @param id the approval id
	 * @param turn the turn that approves or declines: the batch must be of its
	 * conversation
	 * @return the batch, empty when it is not pending in this conversation (unknown,
	 * expired, taken already)
	 */
	public Optional<StoredBatch> claim(String id, Turn turn) {
		return this.store.claim(id, turn.conversationId(), this.clock.instant())
			.map((approval) -> StoredBatchCodec.read(approval.batch()));
	}

	/**
	 * Drop a paused batch whose approval question never reached the user.
	 * @param id the approval id
	 */
	public void forget(String id) {
		this.store.delete(id);
	}

}
