package io.mantlehooks.approval;

import io.mantlehooks.Channel;

/**
 * Decides who may approve or deny a paused batch; declare a bean of this type, and it
 * decides instead of {@code mantle.hooks.approvals.decided-by} (for example, a manager
 * may approve for a customer). It is asked before the batch is claimed: a refused turn
 * ends with {@code mantle.outcome=approval_not_allowed} and the batch keeps waiting for
 * someone the authorizer allows.
 * <p>
 * It is the only rule: the batch's conversation is not compared unless it compares it
 * ({@code approval.conversationId()}). The resumed turn is the deciding turn, so its
 * reply goes to whoever decided, in the conversation they decided in. An authorizer that
 * throws refuses.
 */
@FunctionalInterface
public interface ApprovalAuthorizer {

	/**
	 * Return whether a turn may approve or deny a paused batch.
	 * @param approval the batch, with the sender and conversation that paused it and its
	 * {@link PendingApproval#calls() calls}
	 * @param senderId the deciding turn's sender id ({@code ""} when it has none)
	 * @param channel the deciding turn's channel
	 * @return {@code true} to let the turn claim the batch
	 */
	boolean mayDecide(PendingApproval approval, String senderId, Channel channel);

}
