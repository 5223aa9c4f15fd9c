package io.mantlehooks.ai.approval;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ai.turn.ToolArguments;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.approval.ApprovalAuthorizer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.approval.ToolApprovalPolicy;
import io.mantlehooks.runtime.HookResponses;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.util.Assert;

/**
 * Which tool calls wait for a person ({@code mantle.hooks.approvals.tools} and the
 * {@link ToolApprovalPolicy}), the paused batches in their {@link ApprovalStore}, and who
 * may decide them ({@code mantle.hooks.approvals.decided-by} or an
 * {@link ApprovalAuthorizer}).
 */
public final class ToolApprovals {

	private static final Log logger = LogFactory.getLog(ToolApprovals.class);

	private final Set<String> tools;

	private final @Nullable ToolApprovalPolicy policy;

	private final ApprovalStore store;

	private final Duration ttl;

	private final Clock clock;

	private final @Nullable ApprovalAuthorizer authorizer;

	private final boolean decidedBySender;

	private final HookResponses responses;

	/**
	 * Create the approvals.
	 * @param tools the tool names whose calls always need approval
	 * @param policy decides for other calls, {@code null} for none
	 * @param store where paused batches wait
	 * @param ttl how long a paused batch can be approved
	 * @param clock the clock
	 * @param authorizer decides who may approve or deny a batch, {@code null} to apply
	 * {@code decidedBySender}
	 * @param decidedBySender without an authorizer: whether only the sender that paused a
	 * batch may decide it ({@code decided-by: sender}), else anyone in its conversation
	 * ({@code decided-by: conversation})
	 * @param responses the named replies (what the model is told about a declined batch)
	 */
	public ToolApprovals(Set<String> tools, @Nullable ToolApprovalPolicy policy, ApprovalStore store, Duration ttl,
			Clock clock, @Nullable ApprovalAuthorizer authorizer, boolean decidedBySender, HookResponses responses) {
		Assert.notNull(tools, "'tools' must not be null");
		Assert.notNull(responses, "'responses' must not be null");
		Assert.notNull(store, "'store' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		Assert.notNull(clock, "'clock' must not be null");
		this.tools = Set.copyOf(tools);
		this.policy = policy;
		this.store = store;
		this.ttl = ttl;
		this.clock = clock;
		this.authorizer = authorizer;
		this.decidedBySender = decidedBySender;
		this.responses = responses;
	}

	/**
	 * Return the first call that needs approval.
	 * @param calls the batch's calls as the tool-call hooks left them
	 * @return the call, {@code null} when the batch may run
	 */
	public @Nullable ToolCallPayload firstRequiringApproval(List<ToolCallPayload> calls) {
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
				now.plus(this.ttl), StoredBatchCodec.write(batch, turn.agent())));
		if (this.authorizer == null && turn.senderId().isEmpty() && turn.conversationId().isEmpty()) {
			turn.scope()
				.run(() -> logger.warn("Turn " + turn.id() + " paused batch '" + id
						+ "' for approval with neither a sender nor a conversation id: nobody can be told apart "
						+ "from its sender, so nobody can approve or deny it (only an ApprovalAuthorizer bean could); "
						+ "it expires unapproved. Pass MantleHooks.identity(senderId, channel) or a "
						+ "ChatMemory.CONVERSATION_ID"));
		}
		return id;
	}

	/**
	 * Take a paused batch to run or decline it, when the turn may decide it: asked before
	 * the claim, so a refused turn leaves the batch waiting.
	 * @param id the approval id
	 * @param turn the turn that approves or declines
	 * @return the claimed batch, or why there is none
	 */
	public Claim claim(String id, Turn turn) {
		Instant now = this.clock.instant();
		PendingApproval approval = this.store.find(id, now).orElse(null);
		if (approval == null) {
			return Claim.NOT_FOUND;
		}
		if (this.authorizer == null && !approval.conversationId().equals(turn.conversationId())) {
			// a batch belongs to its conversation: from any other, there is none
			return Claim.NOT_FOUND;
		}
		String wrongAgent = wrongAgent(approval, turn);
		String refusal = (wrongAgent != null) ? wrongAgent : refusal(approval, turn);
		if (refusal != null) {
			turn.scope()
				.run(() -> logger.warn("Turn " + turn.id() + " may not decide approval '" + id + "' of conversation '"
						+ approval.conversationId() + "' (" + refusal + "); it keeps waiting"));
			return Claim.NOT_ALLOWED;
		}
		// the batch's own conversation: an authorizer may let a turn of another
		// one decide
		return this.store.claim(id, approval.conversationId(), now)
			.map((claimed) -> new Claim(StoredBatchCodec.read(claimed.batch()), false))
			.orElse(Claim.NOT_FOUND);
	}

	/**
	 * Why a turn of another agent may not decide the batch: the resumed calls' results
	 * and the model call after them would pass that agent's hooks, not the ones the batch
	 * was paused under (a support agent's result redaction would not run).
	 */
	private static @Nullable String wrongAgent(PendingApproval approval, Turn turn) {
		String agent;
		try {
			agent = approval.agent();
		}
		catch (IllegalArgumentException ex) {
			// an unreadable batch fails when it is read after the claim, as before
			return null;
		}
		return agent.equals(turn.agent()) ? null : "agent '" + agent + "' paused it, and this is a turn of agent '"
				+ turn.agent() + "'; decide it through that agent's ChatClient";
	}

	/**
	 * Why the turn may not decide the batch, {@code null} when it may.
	 */
	private @Nullable String refusal(PendingApproval approval, Turn turn) {
		ApprovalAuthorizer authorizer = this.authorizer;
		if (authorizer != null) {
			try {
				return authorizer.mayDecide(approval, turn.senderId(), turn.channel()) ? null
						: "the ApprovalAuthorizer refused";
			}
			catch (RuntimeException | Error ex) {
				// when in doubt, nobody decides
				turn.scope().run(() -> logger.warn("ApprovalAuthorizer failed; the turn may not decide", ex));
				return "the ApprovalAuthorizer failed";
			}
		}
		if (approval.senderId().isEmpty() && approval.conversationId().isEmpty()) {
			return "it was paused with neither a sender nor a conversation id; only an ApprovalAuthorizer can allow it";
		}
		if (!this.decidedBySender) {
			return approval.conversationId().isEmpty() ? "it was paused without a conversation id" : null;
		}
		return approval.senderId().equals(turn.senderId()) ? null
				: "another sender paused it; mantle.hooks.approvals.decided-by=sender";
	}

	/**
	 * Return what follows a declined batch: no call ran; each call's result tells the
	 * model so with the reply {@value HookResponses#TOOL_CALL_DECLINED}, and gives the
	 * user's reason when there is one.
	 * @param batch the claimed batch
	 * @param reason why the user declined, {@code ""} for no reason
	 * @return the history for the next model call
	 */
	public List<Message> declined(StoredBatch batch, String reason) {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("declined", true);
		result.put("message", this.responses.resolve(null, HookResponses.TOOL_CALL_DECLINED));
		if (!reason.isBlank()) {
			result.put("reason", reason);
		}
		String text = ToolArguments.toJson(result);
		// a call a tool-call hook refused was never part of what the user decided: the
		// model reads its refusal, as it would have had the batch been approved
		List<AssistantMessage.ToolCall> calls = batch.output().getToolCalls();
		List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			AssistantMessage.ToolCall call = calls.get(i);
			String refusal = batch.refusal(i);
			responses
				.add(new ToolResponseMessage.ToolResponse(call.id(), call.name(), (refusal != null) ? refusal : text));
		}
		List<Message> next = new ArrayList<>(batch.history().size() + 2);
		next.addAll(batch.history());
		next.add(batch.output());
		next.add(ToolResponseMessage.builder().responses(responses).build());
		return next;
	}

	/**
	 * Drop a paused batch whose approval question never reached the user.
	 * @param id the approval id
	 */
	public void forget(String id) {
		this.store.delete(id);
	}

	/**
	 * What a claim got.
	 *
	 * @param batch the claimed batch, {@code null} when there is none
	 * @param notAllowed whether the batch waits but the turn may not decide it
	 */
	public record Claim(@Nullable StoredBatch batch, boolean notAllowed) {

		static final Claim NOT_FOUND = new Claim(null, false);

		static final Claim NOT_ALLOWED = new Claim(null, true);

	}

}
