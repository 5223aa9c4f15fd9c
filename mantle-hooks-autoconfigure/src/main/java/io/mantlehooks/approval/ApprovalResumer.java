package io.mantlehooks.approval;

import org.springframework.ai.chat.client.ChatClientResponse;

/**
 * Resumes a paused turn the way the application resumes its conversations, for tools that
 * decide outside the chat (the turn console's Approve and Deny buttons). Only the
 * application knows the {@code ChatClient} a conversation uses (its memory, tools and
 * advisors), so it provides this bean; typically it calls its own chat service with
 * {@code MantleHooks.approve(id)} or {@code MantleHooks.deny(id, reason)} in the
 * conversation of {@code approval}, as its sender ({@code approval.senderId()}: with
 * {@code mantle.hooks.approvals.decided-by=sender} another sender id is refused, unless
 * an {@link ApprovalAuthorizer} allows it):
 *
 * <pre class="code">
 * &#64;Bean
 * ApprovalResumer approvalResumer(ShopAssistant assistant) {
 *     // assistant.decide calls the conversation's ChatClient with approve(id) or deny(id, reason)
 *     return (approval, approved, reason) -&gt; assistant.decide(approval, approved, reason);
 * }
 * </pre>
 */
@FunctionalInterface
public interface ApprovalResumer {

	/**
	 * Resume the turn that paused for this batch, with a {@code .call()}.
	 * @param approval the batch, still waiting when the console looked (the resumed turn
	 * claims it, so another decision may have won in between)
	 * @param approved whether to run it
	 * @param reason why it was declined, {@code ""} when approved
	 * @return the resumed turn's response: the console reports its {@code mantle.outcome}
	 * (e.g. {@code approval_not_found} when another decision won) and shows its reply
	 */
	ChatClientResponse resume(PendingApproval approval, boolean approved, String reason);

}
