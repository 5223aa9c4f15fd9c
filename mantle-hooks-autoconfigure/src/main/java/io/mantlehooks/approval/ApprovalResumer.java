package io.mantlehooks.approval;

/**
 * Resumes a paused turn the way the application resumes its conversations, for tools that
 * decide outside the chat (the turn console's Approve and Deny buttons). Only the
 * application knows the {@code ChatClient} a conversation uses (its memory, tools and
 * advisors), so it provides this bean; typically it calls its own chat service with
 * {@code MantleHooks.approve(id)} or {@code MantleHooks.deny(id, reason)} in the
 * conversation of {@code approval}:
 *
 * <pre class="code">
 * &#64;Bean
 * ApprovalResumer approvalResumer(ShopAssistant assistant) {
 *     return (approval, approved, reason) -&gt; assistant.decide(approval, approved, reason);
 * }
 * </pre>
 */
@FunctionalInterface
public interface ApprovalResumer {

	/**
	 * Resume the turn that paused for this batch.
	 * @param approval the batch, still waiting (the resumed turn claims it)
	 * @param approved whether to run it
	 * @param reason why it was declined, {@code ""} when approved
	 * @return the reply the resumed turn gave
	 */
	String resume(PendingApproval approval, boolean approved, String reason);

}
