/**
 * Internal: not API, may change without notice. The approval engine behind
 * {@link io.mantlehooks.approval}: which calls of a tool-call batch wait for a person
 * ({@link io.mantlehooks.ai.approval.ToolApprovals}), the paused batch
 * ({@link io.mantlehooks.ai.approval.StoredBatch}) and its JSON form in an
 * {@code ApprovalStore}, who may decide it, the question the user is asked, and what the
 * model is told about a declined batch. The tool batch ({@code ai.tool.ToolBatch}) pauses
 * and resumes batches through it; in the chat turn, {@code ai.chat.ApprovalStage} claims
 * a batch for an approving or denying turn and hands it to the tool loop.
 */
@NullMarked
package io.mantlehooks.ai.approval;

import org.jspecify.annotations.NullMarked;
