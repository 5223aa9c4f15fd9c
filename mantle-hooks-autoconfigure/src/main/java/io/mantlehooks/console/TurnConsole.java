package io.mantlehooks.console;

import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.approval.ApprovalResumer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
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
 * <p>
 * Each decision is logged at INFO with the operator who took it, and a decision that
 * decided the batch is written to the transcript as an entry of its own, whose sender is
 * the operator: the resumed turn itself runs as the conversation's sender (the
 * application's resumer speaks for them), so its entries cannot say who pressed the
 * button.
 */
public final class TurnConsole {

	private static final Log logger = LogFactory.getLog(TurnConsole.class);

	/** The channel of the transcript entries the console writes for its decisions. */
	public static final String CHANNEL = "turn-console";

	/** What {@link Turns#decisionsOff()} says when no {@link ApprovalResumer} exists. */
	public static final String NO_RESUMER = "no_resumer";

	/**
	 * Spring AI's chat memory, and so the transcript, use this id for no conversation.
	 */
	private static final String DEFAULT_CONVERSATION = "default";

	private final TurnRecorder recorder;

	private final @Nullable ApprovalStore approvals;

	private final @Nullable TranscriptStore transcript;

	private final @Nullable ApprovalResumer resumer;

	private final Supplier<? extends Collection<String>> agents;

	private final Clock clock;

	/**
	 * Create a console that knows no agents but those of the recorded turns.
	 * @param recorder the recorded turns
	 * @param approvals where paused batches wait, {@code null} without approvals
	 * @param transcript the transcript, {@code null} when it is off
	 * @param resumer resumes a paused turn, {@code null} when the application has none
	 * @param clock tells expired approvals
	 */
	public TurnConsole(TurnRecorder recorder, @Nullable ApprovalStore approvals, @Nullable TranscriptStore transcript,
			@Nullable ApprovalResumer resumer, Clock clock) {
		this(recorder, approvals, transcript, resumer, List::of, clock);
	}

	/**
	 * Create a console.
	 * @param recorder the recorded turns
	 * @param approvals where paused batches wait, {@code null} without approvals
	 * @param transcript the transcript, {@code null} when it is off
	 * @param resumer resumes a paused turn, {@code null} when the application has none
	 * @param agents the agents the application's hooks name in {@code @ForAgent}, read on
	 * every request (hooks are discovered once the context has started)
	 * @param clock tells expired approvals
	 */
	public TurnConsole(TurnRecorder recorder, @Nullable ApprovalStore approvals, @Nullable TranscriptStore transcript,
			@Nullable ApprovalResumer resumer, Supplier<? extends Collection<String>> agents, Clock clock) {
		this.recorder = recorder;
		this.approvals = approvals;
		this.transcript = transcript;
		this.resumer = resumer;
		this.agents = agents;
		this.clock = clock;
	}

	/**
	 * Return the recent turns, newest first, without texts (see {@link #turn}).
	 * @return the turns with their hook invocations
	 */
	public Turns turns() {
		return turns(null);
	}

	/**
	 * Return the recent turns new or changed since a version of the list, newest first,
	 * without texts (see {@link #turn}), for a console that polls: it sends the
	 * {@link Turns#version()} of its last answer and merges the answer into what it has.
	 * @param changedSince the version of an earlier answer, {@code null} for every turn
	 * @return the turns with their hook invocations
	 * @throws IllegalArgumentException when {@code changedSince} is no version of the
	 * list
	 * @see TurnRecorder#changes(String)
	 */
	public Turns turns(@Nullable String changedSince) {
		TurnRecorder.Changes changes = this.recorder.changes(changedSince);
		// the list leaves the texts to each turn's detail: 200 turns of texts are
		// too much; the first words of each message (with include-text) stay, so the
		// rows can be told apart
		List<RecordedTurn> turns = changes.turns()
			.stream()
			.map((turn) -> new RecordedTurn(turn.id(), turn.senderId(), turn.channel(), turn.conversationId(),
					turn.agent(), turn.outcome(), turn.start(), turn.durationMs(), turn.approvalId(),
					turn.hooks().stream().map(RecordedHook::withoutText).toList(), turn.messagePreview()))
			.toList();
		return new Turns(this.recorder.includesText(), this.resumer != null, (this.resumer != null) ? null : NO_RESUMER,
				agents(), changes.version(), changes.complete(), changes.removed(), turns);
	}

	/**
	 * The agents hooks are configured for: those named in {@code @ForAgent} and
	 * {@code default}, which a client that names no agent runs.
	 */
	private List<String> agents() {
		Set<String> agents = new TreeSet<>(this.agents.get());
		agents.add(MantleHooks.DEFAULT_AGENT);
		return List.copyOf(agents);
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
	 * Approve or deny a waiting batch through the application's {@link ApprovalResumer},
	 * without a known operator.
	 * @param approvalId the approval id
	 * @param approved whether to run the batch
	 * @param reason why it was declined
	 * @return what happened
	 * @see #decide(String, boolean, String, String)
	 */
	public Decision decide(String approvalId, boolean approved, @Nullable String reason) {
		return decide(approvalId, approved, reason, null);
	}

	/**
	 * Approve or deny a waiting batch through the application's {@link ApprovalResumer}.
	 * The decision is logged with the operator; when it decided the batch, the transcript
	 * gets an entry whose sender is the operator.
	 * @param approvalId the approval id
	 * @param approved whether to run the batch
	 * @param reason why it was declined
	 * @param operator the name of the operator who decided (the request's principal),
	 * {@code null} when nobody is signed in
	 * @return what happened
	 */
	public Decision decide(String approvalId, boolean approved, @Nullable String reason, @Nullable String operator) {
		if (this.resumer == null) {
			return new Decision("unsupported", null);
		}
		String by = describe(operator);
		try {
			PendingApproval approval = waiting(approvalId);
			if (approval == null) {
				logger.info("Turn console: approval " + clean(approvalId) + " was not found (decided or expired); "
						+ (approved ? "approve" : "deny") + " " + by + " ran nothing");
				return new Decision("approval_not_found", null);
			}
			ChatClientResponse resumed = this.resumer.resume(approval, approved, (reason != null) ? reason : "");
			String outcome = outcomeOf(approvalId, resumed, approved);
			logger.info("Turn console: approval " + approvalId + " of conversation '" + clean(approval.conversationId())
					+ "' " + (approved ? "approve" : "deny") + " " + by + ": " + outcome + " (resumed turn "
					+ turnIdOf(resumed) + ")");
			if (outcome.equals("approved") || outcome.equals("denied")) {
				record(approval, resumed, approved, reason, operator);
			}
			return new Decision(outcome, this.recorder.includesText() ? replyOf(resumed) : null);
		}
		catch (RuntimeException | Error ex) {
			// the console shows a generic outcome; the log has the reason
			logger.warn("Deciding approval " + approvalId + " from the turn console " + by + " failed", ex);
			return new Decision("error", null);
		}
	}

	/**
	 * The decision as a transcript entry of its own: the resumed turn's entries carry the
	 * conversation's sender, not the operator.
	 */
	private void record(PendingApproval approval, @Nullable ChatClientResponse resumed, boolean approved,
			@Nullable String reason, @Nullable String operator) {
		if (this.transcript == null) {
			return;
		}
		String text = (approved ? "Approved" : "Denied") + " in the turn console "
				+ ((operator != null) ? "by " + operator : "(no operator signed in)")
				+ ((!approved && reason != null && !reason.isEmpty()) ? ": " + reason : ".");
		String conversation = approval.conversationId().isEmpty() ? DEFAULT_CONVERSATION : approval.conversationId();
		try {
			this.transcript.append(
					new TranscriptEntry(conversation, turnIdOf(resumed), (operator != null) ? operator : "", CHANNEL,
							TranscriptRole.USER, text, false, approved ? "approved" : "denied", this.clock.instant()));
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Could not write the turn console's decision on approval " + approval.id()
					+ " to the transcript; it was " + (approved ? "approved" : "denied"), ex);
		}
	}

	/** Who decided, for the log. */
	private static String describe(@Nullable String operator) {
		return (operator != null) ? "by '" + clean(operator) + "'" : "by an operator who is not signed in";
	}

	/** A name or id from a request cannot break the log line. */
	private static String clean(String text) {
		return text.replaceAll("\\p{Cntrl}", "?");
	}

	private static String turnIdOf(@Nullable ChatClientResponse resumed) {
		Object turnId = (resumed != null) ? resumed.context().get(MantleHooks.TURN_ID) : null;
		return (turnId != null) ? turnId.toString() : "";
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
	 * @param decisionsOff why they cannot, {@code null} when they can:
	 * {@value #NO_RESUMER} (the application has no {@link ApprovalResumer}) or, from the
	 * endpoint, {@code endpoint_read_only} (its access is read-only)
	 * @param agents every agent the application has hooks for, sorted, whether or not a
	 * turn of it was recorded: each agent a hook names in {@code @ForAgent}, and
	 * {@code default} (a client that names no agent, or one no hook names, runs the hooks
	 * of every agent)
	 * @param version the list's version, to send back as {@code changedSince} on the next
	 * poll
	 * @param complete whether {@code turns} is every recorded turn (asked without
	 * {@code changedSince}, or with a version of another run or too old): the client
	 * replaces its list; otherwise {@code turns} holds only the turns new or changed
	 * since (and every running turn), to merge into its list
	 * @param removed the ids of the turns that left the list since (the recorder keeps
	 * only the latest), for the client to drop; empty when {@code complete}
	 * @param turns the turns, newest first
	 */
	public record Turns(boolean includeText, boolean canDecide, @Nullable String decisionsOff, List<String> agents,
			String version, boolean complete, List<String> removed, List<RecordedTurn> turns) {

		/**
		 * Return these turns with decisions off.
		 * @param reason why
		 * @return the turns, without decisions
		 */
		public Turns withoutDecisions(String reason) {
			return new Turns(this.includeText, false, reason, this.agents, this.version, this.complete, this.removed,
					this.turns);
		}

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
