package io.mantlehooks.approval;

import io.mantlehooks.ToolCallPayload;

/**
 * Decides per tool call whether a person must approve it before it runs, on the call as
 * the tool-call hooks left it; declare a bean of this type. Calls of the tools named in
 * {@code mantle.hooks.approvals.tools} need approval whatever the policy says.
 * <p>
 * A policy that throws is taken to require approval: when in doubt, a person decides.
 */
@FunctionalInterface
public interface ToolApprovalPolicy {

	/**
	 * Return whether the call must wait for a person's approval.
	 * @param call the call after the tool-call hooks
	 * @return {@code true} to pause the batch until the call is approved or denied
	 */
	boolean requiresApproval(ToolCallPayload call);

}
