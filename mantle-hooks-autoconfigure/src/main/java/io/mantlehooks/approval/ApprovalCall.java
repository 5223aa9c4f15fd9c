package io.mantlehooks.approval;

import org.springframework.util.Assert;

/**
 * One call of a paused batch, as it runs if the batch is approved: the tool and its
 * arguments as the tool-call hooks left them. The approval question ({@code {calls}} of
 * {@code utter_tool_approval_required}), the response context
 * ({@code mantle.approval_calls}), {@link PendingApproval#calls()} and the turn console
 * all list these, one per call, in batch order.
 *
 * @param toolName the tool's name
 * @param arguments the arguments as compact JSON object text, exactly as the tool gets
 * them
 */
public record ApprovalCall(String toolName, String arguments) {

	/**
	 * Create a call; neither component may be {@code null}.
	 * @param toolName the tool's name
	 * @param arguments the arguments as compact JSON object text, exactly as the tool
	 * gets them
	 */
	public ApprovalCall {
		Assert.notNull(toolName, "'toolName' must not be null");
		Assert.notNull(arguments, "'arguments' must not be null");
	}

	/**
	 * Return the call as one line of the approval question: the tool's name, a space, its
	 * JSON arguments.
	 * @return the line
	 */
	public String text() {
		return this.toolName + " " + this.arguments;
	}

}
