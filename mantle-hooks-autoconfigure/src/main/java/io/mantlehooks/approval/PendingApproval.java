package io.mantlehooks.approval;

import java.time.Instant;
import java.util.List;

import org.springframework.util.Assert;

/**
 * A paused tool-call batch waiting for a person. The batch itself (the calls as the
 * tool-call hooks left them, their MCP metadata and what the turn needs to continue) is
 * opaque to stores: they keep {@code batch} as they got it; {@link #calls()} reads the
 * calls out of it.
 *
 * @param id the approval id the user gets ({@code mantle.approval_id})
 * @param conversationId the conversation the batch belongs to
 * @param senderId who asked
 * @param channel the channel's name
 * @param createdAt when the batch paused
 * @param expiresAt after this instant it can no longer be approved
 * @param batch the stored batch, serialized by the engine
 */
public record PendingApproval(String id, String conversationId, String senderId, String channel, Instant createdAt,
		Instant expiresAt, String batch) {

	/**
	 * Create a pending approval; the id must not be empty and no other component
	 * {@code null}.
	 * @param id the approval id the user gets ({@code mantle.approval_id})
	 * @param conversationId the conversation the batch belongs to
	 * @param senderId who asked
	 * @param channel the channel's name
	 * @param createdAt when the batch paused
	 * @param expiresAt after this instant it can no longer be approved
	 * @param batch the stored batch, serialized by the engine
	 */
	public PendingApproval {
		Assert.hasText(id, "'id' must not be empty");
		Assert.notNull(conversationId, "'conversationId' must not be null");
		Assert.notNull(senderId, "'senderId' must not be null");
		Assert.notNull(channel, "'channel' must not be null");
		Assert.notNull(createdAt, "'createdAt' must not be null");
		Assert.notNull(expiresAt, "'expiresAt' must not be null");
		Assert.notNull(batch, "'batch' must not be null");
	}

	/**
	 * Return the calls that run if the batch is approved, in batch order: the calls the
	 * approval question listed (read from {@code batch} on each call).
	 * @return the calls
	 * @throws IllegalArgumentException when {@code batch} is not a batch the engine
	 * stored
	 */
	public List<ApprovalCall> calls() {
		return BatchCalls.read(this.batch);
	}

	/**
	 * Return the agent whose turn paused the batch: only a turn of that agent may decide
	 * it, since that agent's hooks run for the calls' results. An {@link ApprovalResumer}
	 * uses it to pick the agent's {@code ChatClient}.
	 * @return the agent's name, {@link io.mantlehooks.MantleHooks#DEFAULT_AGENT} when the
	 * client named none
	 * @throws IllegalArgumentException when {@code batch} is not a batch the engine
	 * stored
	 */
	public String agent() {
		return BatchCalls.agent(this.batch);
	}

}
