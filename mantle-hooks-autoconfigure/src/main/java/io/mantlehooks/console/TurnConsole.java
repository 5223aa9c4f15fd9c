package io.mantlehooks.console;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.approval.ApprovalResumer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.model.ChatResponse;

/**
 * What the turn console shows and does: recent turns from the {@link TurnRecorder}, each
 * with its waiting approval and transcript entries when those features are on, and
 * decisions on waiting approvals through the application's {@link ApprovalResumer}.
 * Without {@code include-text} no payload text leaves it: no hook texts, transcript
 * texts, tool arguments or replies.
 */
public final class TurnConsole {

	private static final Log logger = LogFactory.getLog(TurnConsole.class);

	private final TurnRecorder recorder;

	private final @Nullable ApprovalStore approvals;

	private final @Nullable TranscriptStore transcript;

	private final @Nullable ApprovalResumer resumer;

	private final Clock clock;

	/**
	 * Create a console.
	 * @param recorder the recorded turns
	 * @param approvals where paused batches wait, {@code null} without approvals
	 * @param transcript the transcript, {@code null} when it is off
	 * @param resumer resumes a paused turn, {@code null} when the application has none
	 * @param clock tells expired approvals
	 */
	public TurnConsole(TurnRecorder recorder, @Nullable ApprovalStore approvals, @Nullable TranscriptStore transcript,
			@Nullable ApprovalResumer resumer, Clock clock) {
		this.recorder = recorder;
		this.approvals = approvals;
		this.transcript = transcript;
		this.resumer = resumer;
		this.clock = clock;
	}

	/**
	 * Return the recent turns, newest first, without texts (see {@link #turn}).
	 * @return the turns with their hook invocations
	 */
	public Turns turns() {
		// the list leaves the texts to each turn's detail: 200 turns of texts are too
		// much
		List<RecordedTurn> turns = this.recorder.turns()
			.stream()
			.map((turn) -> new RecordedTurn(turn.id(), turn.senderId(), turn.channel(), turn.conversationId(),
					turn.outcome(), turn.start(), turn.durationMs(), turn.approvalId(),
					turn.hooks()
						.stream()
						.map((hook) -> new RecordedHook(hook.point(), hook.lane(), hook.hook(), hook.startMs(),
								hook.durationMs(), hook.outcome(), null, null))
						.toList()))
			.toList();
		return new Turns(this.recorder.includesText(), this.resumer != null, turns);
	}

	/**
	 * Return one turn with its approval and transcript entries.
	 * @param turnId the turn id
	 * @return the turn, empty when it is not recorded
	 */
	public Optional<TurnDetail> turn(String turnId) {
		return this.recorder.turn(turnId).map((turn) -> new TurnDetail(turn, approval(turn), transcript(turn)));
	}

	/**
	 * Approve or deny a waiting batch through the application's {@link ApprovalResumer}.
	 * @param approvalId the approval id
	 * @param approved whether to run the batch
	 * @param reason why it was declined
	 * @return what happened
	 */
	public Decision decide(String approvalId, boolean approved, @Nullable String reason) {
		if (this.resumer == null) {
			return new Decision("unsupported", null);
		}
		try {
			PendingApproval approval = waiting(approvalId);
			if (approval == null) {
				return new Decision("approval_not_found", null);
			}
			ChatClientResponse resumed = this.resumer.resume(approval, approved, (reason != null) ? reason : "");
			return new Decision(outcomeOf(approvalId, resumed, approved),
					this.recorder.includesText() ? replyOf(resumed) : null);
		}
		catch (RuntimeException | Error ex) {
			// the console shows a generic outcome; the log has the reason
			logger.warn("Deciding approval " + approvalId + " from the turn console failed", ex);
			return new Decision("error", null);
		}
	}

	private @Nullable PendingApproval waiting(String approvalId) {
		return (this.approvals != null) ? this.approvals.find(approvalId, this.clock.instant()).orElse(null) : null;
	}

	/**
	 * What the decision did. The resumed turn says {@code approval_not_found} when
	 * another decision claimed the batch first. Any other outcome may come after the
	 * claim (an outgoing-text hook rejected the final answer, a later hook failed): the
	 * batch was decided when it no longer waits; while it still waits, the turn ended
	 * before the claim (e.g. its message was rejected) and its outcome says why.
	 */
	private String outcomeOf(String approvalId, @Nullable ChatClientResponse resumed, boolean approved) {
		Object outcome = (resumed != null) ? resumed.context().get(MantleHooks.OUTCOME) : null;
		if ("approval_not_found".equals(outcome)) {
			return "approval_not_found";
		}
		if (outcome == null || "awaiting_approval".equals(outcome) || waiting(approvalId) == null) {
			return approved ? "approved" : "denied";
		}
		return String.valueOf(outcome);
	}

	private static @Nullable String replyOf(@Nullable ChatClientResponse resumed) {
		ChatResponse response = (resumed != null) ? resumed.chatResponse() : null;
		return (response != null && response.getResult() != null) ? response.getResult().getOutput().getText() : null;
	}

	private @Nullable ApprovalView approval(RecordedTurn turn) {
		if (turn.approvalId() == null || this.approvals == null) {
			return null;
		}
		Instant now = this.clock.instant();
		PendingApproval pending;
		List<ApprovalCall> calls;
		try {
			pending = this.approvals.find(turn.approvalId(), now).orElse(null);
			calls = (pending != null) ? pending.calls() : List.of();
		}
		catch (RuntimeException | Error ex) {
			// a store that is down or a row that cannot be read: the turn is still shown
			logger.warn("Could not read approval " + turn.approvalId() + " for the turn console", ex);
			return new ApprovalView(turn.approvalId(), false, true, null, List.of());
		}
		if (pending == null) {
			return new ApprovalView(turn.approvalId(), false, false, null, List.of());
		}
		List<String> described = calls.stream()
			.map((call) -> this.recorder.includesText() ? call.text() : call.toolName())
			.toList();
		return new ApprovalView(turn.approvalId(), true, false, pending.expiresAt(), described);
	}

	private List<TranscriptLine> transcript(RecordedTurn turn) {
		if (this.transcript == null || turn.conversationId().isEmpty()) {
			return List.of();
		}
		try {
			return this.transcript.find(turn.conversationId())
				.stream()
				.filter((entry) -> entry.turnId().equals(turn.id()))
				.map(this::line)
				.toList();
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Reading the transcript of turn " + turn.id() + " failed", ex);
			return List.of();
		}
	}

	private TranscriptLine line(TranscriptEntry entry) {
		return new TranscriptLine(entry.role().name().toLowerCase(), this.recorder.includesText() ? entry.text() : null,
				entry.discarded(), entry.outcome(), entry.timestamp());
	}

	/**
	 * The recent turns.
	 *
	 * @param includeText whether hook texts are shown
	 * @param canDecide whether approvals can be decided here
	 * @param turns the turns, newest first
	 */
	public record Turns(boolean includeText, boolean canDecide, List<RecordedTurn> turns) {

	}

	/**
	 * One turn with what belongs to it.
	 *
	 * @param turn the recorded turn
	 * @param approval its paused batch, {@code null} when it did not pause
	 * @param transcript its transcript entries
	 */
	public record TurnDetail(RecordedTurn turn, @Nullable ApprovalView approval, List<TranscriptLine> transcript) {

	}

	/**
	 * A paused batch.
	 *
	 * @param id the approval id
	 * @param pending whether it still waits (not decided, not expired)
	 * @param unreadable whether the store could not say (it failed, or the stored batch
	 * could not be read; the log has why)
	 * @param expiresAt when it expires, while pending
	 * @param calls every call that runs if the batch is approved, in batch order, as the
	 * approval question named them ({@link ApprovalCall#text()}); tool names only unless
	 * texts are included
	 */
	public record ApprovalView(String id, boolean pending, boolean unreadable, @Nullable Instant expiresAt,
			List<String> calls) {

	}

	/**
	 * One transcript entry.
	 *
	 * @param role {@code user} or {@code assistant}
	 * @param text the text, only when texts are included
	 * @param discarded whether the entry is a rejected message or its reply
	 * @param outcome the turn's outcome
	 * @param timestamp when it was written
	 */
	public record TranscriptLine(String role, @Nullable String text, boolean discarded, @Nullable String outcome,
			Instant timestamp) {

	}

	/**
	 * What a decision did.
	 *
	 * @param outcome {@code approved}, {@code denied}, {@code approval_not_found},
	 * {@code unsupported} (no {@link ApprovalResumer}), {@code error} (the store or the
	 * resumer failed) or, when the batch still waits after the resumed turn, that turn's
	 * {@code mantle.outcome} (e.g. {@code rejected}: its message was refused)
	 * @param reply the resumed turn's reply, only when texts are included
	 */
	public record Decision(String outcome, @Nullable String reply) {

	}

}
