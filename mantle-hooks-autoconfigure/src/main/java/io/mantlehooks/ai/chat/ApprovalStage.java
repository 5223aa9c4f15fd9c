package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.approval.StoredBatch;
import io.mantlehooks.ai.approval.ToolApprovals;
import io.mantlehooks.ai.approval.ToolApprovals.Claim;
import io.mantlehooks.ai.chat.IncomingMessageStage.Start;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.HookResponses;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;

/**
 * A turn that approves or declines a paused batch ({@code MantleHooks.approve} /
 * {@code deny}): after the incoming-message hooks accepted the user's message, the batch
 * is claimed (once, whichever instance asks first) and handed to the tool loop; when it
 * is not pending in this conversation, the turn answers {@code utter_approval_not_found};
 * when the turn may not decide it ({@code decided-by}, {@code ApprovalAuthorizer}), it
 * answers {@code utter_approval_not_allowed} and the batch keeps waiting.
 */
final class ApprovalStage {

	/** What a claim the store could not carry out gets (compared by identity). */
	private static final Claim STORE_FAILED = new Claim(null, false);

	private static final Log logger = LogFactory.getLog(ApprovalStage.class);

	private final @Nullable ToolApprovals approvals;

	private final IncomingMessageStage incoming;

	ApprovalStage(@Nullable ToolApprovals approvals, IncomingMessageStage incoming) {
		this.approvals = approvals;
		this.incoming = incoming;
	}

	Step<Start> resume(Turn turn, Start start) {
		ChatClientRequest request = start.request();
		if (request == null) {
			return Step.done(start);
		}
		String approve = text(request.context().get(MantleHooks.APPROVE));
		String deny = text(request.context().get(MantleHooks.DENY));
		if (approve == null && deny == null) {
			return Step.done(start);
		}
		String id = (approve != null) ? approve : deny;
		String reason = (approve != null) ? "" : reason(request.context().get(MantleHooks.DENY_REASON));
		ToolApprovals approvals = this.approvals;
		if (approvals == null) {
			return notFound(turn, start, "approvals are not configured");
		}
		return Step.blocking(() -> claim(approvals, id, turn), (claim) -> {
			if (claim == STORE_FAILED) {
				// the store did not answer: the batch may well still wait, so the user is
				// told to try again, not that it is gone
				return ended(turn, start,
						new Outcome(Outcome.HOOK_ERROR,
								"the approval store could not claim batch '" + id + "'; nothing runs"),
						HookResponses.TOOL_CALL_HOOK_ERROR);
			}
			StoredBatch batch = claim.batch();
			if (batch != null) {
				return Step.done(Start.proceed(withResume(request, new Resume(batch, approve != null, reason)),
						start.userText()));
			}
			if (claim.notAllowed()) {
				return ended(turn, start,
						new Outcome(Outcome.APPROVAL_NOT_ALLOWED,
								"this turn may not decide batch '" + id + "'; it keeps waiting"),
						HookResponses.APPROVAL_NOT_ALLOWED);
			}
			return notFound(turn, start, "no batch '" + id + "' is waiting in this conversation");
		});
	}

	/**
	 * Claim the batch, {@link #STORE_FAILED} when the store failed (nothing runs).
	 */
	private static Claim claim(ToolApprovals approvals, String id, Turn turn) {
		try {
			return approvals.claim(id, turn);
		}
		catch (RuntimeException | Error ex) {
			turn.scope()
				.run(() -> logger.warn("Could not claim the batch '" + id + "' waiting for approval; nothing runs",
						ex));
			return STORE_FAILED;
		}
	}

	private Step<Start> notFound(Turn turn, Start start, String reason) {
		return ended(turn, start, new Outcome(Outcome.APPROVAL_NOT_FOUND, reason), HookResponses.APPROVAL_NOT_FOUND);
	}

	private Step<Start> ended(Turn turn, Start start, Outcome outcome, String reply) {
		return this.incoming.reply(turn, Objects.requireNonNull(start.request()), outcome, null, reply)
			.map((replied) -> new Start(null, replied.reply(), replied.outcome(), start.userText(), false));
	}

	private static ChatClientRequest withResume(ChatClientRequest request, Resume resume) {
		Map<String, @Nullable Object> context = new HashMap<>(request.context());
		context.put(Resume.KEY, resume);
		return new ChatClientRequest(request.prompt(), context);
	}

	/**
	 * The reason as set by {@code MantleHooks.deny}; a param set some other way is used
	 * only when it is text, and cut to the longest reason {@code deny} accepts (never
	 * rendered: a deeply nested object would exhaust the stack).
	 */
	private static String reason(@Nullable Object value) {
		if (!(value instanceof String reason)) {
			return "";
		}
		return (reason.length() > MantleHooks.MAX_DENY_REASON_LENGTH)
				? reason.substring(0, MantleHooks.MAX_DENY_REASON_LENGTH) : reason;
	}

	private static @Nullable String text(@Nullable Object value) {
		return (value instanceof String text && !text.isBlank()) ? text : null;
	}

}
