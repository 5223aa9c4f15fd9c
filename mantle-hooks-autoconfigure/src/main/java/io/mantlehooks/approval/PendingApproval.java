package io.mantlehooks.approval;

import java.time.Instant;

import org.springframework.util.Assert;

/**
 * A paused tool-call batch waiting for a person. The batch itself (the calls as the
 * tool-call hooks left them, their MCP metadata and what the turn needs to continue) is
 * opaque to stores: they keep {@code batch} as they got it.
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

	public PendingApproval {
		Assert.hasText(id, "'id' must not be empty");
		Assert.notNull(conversationId, "'conversationId' must not be null");
		Assert.notNull(senderId, "'senderId' must not be null");
		Assert.notNull(channel, "'channel' must not be null");
		Assert.notNull(createdAt, "'createdAt' must not be null");
		Assert.notNull(expiresAt, "'expiresAt' must not be null");
		Assert.notNull(batch, "'batch' must not be null");
	}

}
