package io.mantlehooks.console;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Keeps the most recent turns and their hook invocations in memory, from the
 * {@code mantle.turn} and {@code mantle.hook} observations. Bounded: at most
 * {@code maxTurns} turns (the oldest go first) and {@value #MAX_HOOKS_PER_TURN}
 * invocations per turn. Texts before and after each modify hook, and the first words of
 * the user's message, are kept only when {@code includeText} is on, since payloads may
 * hold personal data. The attempts of a retried model call are labelled (see
 * {@link ModelCallAttempts}). The outgoing-text invocations of a reply streamed in
 * segments show as one row (see {@link SegmentedReplies}). The list has versions (see
 * {@link TurnListVersions}), so that a console that polls it is sent only what changed
 * ({@link #changes(String)}).
 */
public final class TurnRecorder implements ObservationHandler<Observation.Context> {

	static final int MAX_HOOKS_PER_TURN = 500;

	/** The outcome of a tool-call modify hook that refused the call. */
	static final String REFUSED = "refused";

	private static final String PROCEEDED = "proceeded";

	private static final String STARTED = TurnRecorder.class.getName() + ".started";

	private final int maxTurns;

	private final boolean includeText;

	private final Clock clock;

	private final Map<String, Recording> turns = new ConcurrentHashMap<>();

	private final ConcurrentLinkedDeque<String> order = new ConcurrentLinkedDeque<>();

	private final TurnListVersions versions;

	/**
	 * Create a recorder.
	 * @param maxTurns how many recent turns to keep
	 * @param includeText whether to keep the texts before and after modify hooks
	 * @param clock gives each turn its start time
	 */
	public TurnRecorder(int maxTurns, boolean includeText, Clock clock) {
		Assert.isTrue(maxTurns > 0, "'maxTurns' must be positive");
		this.maxTurns = maxTurns;
		this.includeText = includeText;
		this.clock = clock;
		this.versions = new TurnListVersions(maxTurns);
	}

	/**
	 * Return whether texts are kept.
	 * @return whether texts before and after modify hooks are kept
	 */
	public boolean includesText() {
		return this.includeText;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof TurnObservationContext || context instanceof HookObservationContext;
	}

	@Override
	public void onStart(Observation.Context context) {
		long now = System.nanoTime();
		context.put(STARTED, now);
		if (context instanceof TurnObservationContext turn) {
			Recording recording = new Recording(turn, this.clock.instant(), now, this.includeText, this.versions);
			if (this.turns.putIfAbsent(turn.getTurnId(), recording) != null) {
				return;
			}
			// listed first, then versioned: a poll that reads the new version finds it
			recording.changed();
			this.order.addLast(turn.getTurnId());
			while (this.order.size() > this.maxTurns) {
				String oldest = this.order.pollFirst();
				if (oldest != null) {
					this.turns.remove(oldest);
					this.versions.evicted(oldest);
				}
			}
		}
	}

	@Override
	public void onStop(Observation.Context context) {
		long now = System.nanoTime();
		Long started = context.get(STARTED);
		if (started == null) {
			return;
		}
		if (context instanceof TurnObservationContext turn) {
			Recording recording = this.turns.get(turn.getTurnId());
			if (recording != null) {
				recording.finish(turn.getOutcome(), turn.getApprovalId(), now);
			}
		}
		else if (context instanceof HookObservationContext hook) {
			Recording recording = this.turns.get(hook.getTurnId());
			if (recording != null) {
				recording.add(hook, started, now, this.includeText);
			}
		}
	}

	/**
	 * Return the recorded turns, newest first.
	 * @return the turns
	 */
	public List<RecordedTurn> turns() {
		return this.turns.values()
			.stream()
			.map((recording) -> recording.view(this.includeText))
			.sorted(Comparator.comparing(RecordedTurn::start).reversed())
			.toList();
	}

	/**
	 * Return what changed in the list since a version of it: for a console that polls,
	 * the turns new or changed since its last answer and those that left the list.
	 * Running turns are always among them (their duration grows).
	 * @param since the {@link Changes#version() version} of an earlier answer,
	 * {@code null} for the whole list
	 * @return the changes; the whole list when {@code since} is {@code null}, of another
	 * run of the application (or another instance), or too old to tell what left the list
	 * @throws IllegalArgumentException when {@code since} is no version of this list
	 */
	public Changes changes(@Nullable String since) {
		// read first: whatever changes from here on has a later version, and is sent
		// again on the next poll
		long current = this.versions.current();
		long from = (since != null) ? this.versions.parse(since, current) : -1;
		List<String> removed = (from >= 0) ? this.versions.evictedSince(from) : null;
		if (removed == null) {
			return new Changes(this.versions.format(current), true, turns(), List.of());
		}
		List<RecordedTurn> changed = this.turns.values()
			.stream()
			.map((recording) -> recording.viewIfChangedSince(from, this.includeText))
			.filter(Objects::nonNull)
			.sorted(Comparator.comparing(RecordedTurn::start).reversed())
			.toList();
		return new Changes(this.versions.format(current), false, changed, removed);
	}

	/**
	 * Return one recorded turn.
	 * @param turnId the turn's id
	 * @return the turn, empty when it is not (or no longer) recorded
	 */
	public Optional<RecordedTurn> turn(String turnId) {
		return Optional.ofNullable(this.turns.get(turnId)).map((recording) -> recording.view(this.includeText));
	}

	/**
	 * One turn being recorded; invocations arrive from any thread.
	 */
	private static final class Recording {

		private final String id;

		private final String senderId;

		private final String channel;

		private final String conversationId;

		private final String agent;

		private final Instant start;

		private final long startNanos;

		private final List<Entry> hooks = new ArrayList<>();

		private final TurnListVersions versions;

		/**
		 * Gives the user's text while the turn runs (it is set after the start);
		 * {@code null} without texts, so that nothing keeps it, and once the turn ended.
		 */
		private @Nullable TurnObservationContext texts;

		/** The user's text, taken from the context when the turn ended. */
		private @Nullable String userText;

		private @Nullable String outcome;

		private @Nullable String approvalId;

		private long endNanos = -1;

		/** The version of the list at this turn's last change. */
		private long version;

		Recording(TurnObservationContext turn, Instant start, long startNanos, boolean includeText,
				TurnListVersions versions) {
			this.versions = versions;
			this.id = turn.getTurnId();
			this.senderId = turn.getSenderId();
			this.channel = turn.getChannel();
			this.conversationId = turn.getConversationId();
			// set before the observation starts, and fixed for the turn: a nested call
			// of another agent runs in this turn, under this turn's observation
			this.agent = turn.getAgent();
			this.texts = includeText ? turn : null;
			this.start = start;
			this.startNanos = startNanos;
		}

		synchronized void finish(String outcome, @Nullable String approvalId, long endNanos) {
			// keep the text, not the context: it is no longer needed
			if (this.texts != null) {
				this.userText = this.texts.getUserText();
				this.texts = null;
			}
			this.outcome = outcome;
			this.approvalId = approvalId;
			this.endNanos = endNanos;
			changed();
		}

		/** Give this turn the list's next version: it changed. */
		synchronized void changed() {
			this.version = this.versions.next();
		}

		/**
		 * Return this turn when it changed after a version of the list or still runs.
		 */
		synchronized @Nullable RecordedTurn viewIfChangedSince(long since, boolean includeText) {
			return (this.version > since || this.endNanos < 0) ? view(includeText) : null;
		}

		synchronized void add(HookObservationContext hook, long started, long stopped, boolean includeText) {
			if (this.hooks.size() >= MAX_HOOKS_PER_TURN) {
				return;
			}
			boolean modify = "modify".equals(hook.getLane());
			RecordedHook recorded = new RecordedHook(hook.getPoint().configName(), hook.getLane(), hook.getHookName(),
					hook.getAgent(), millis(started - this.startNanos), millis(stopped - started),
					millis(hook.getQueued().toNanos()), outcome(hook, modify),
					(includeText && modify) ? PayloadText.of(hook.getInput()) : null,
					(includeText && modify) ? PayloadText.of(hook.getOutput()) : null);
			// the segment is no text: it is read with or without include-text
			boolean outgoingModify = modify && hook.getPoint() == HookPoint.OUTGOING_TEXT;
			OutgoingTextPayload payload = (hook.getInput() instanceof OutgoingTextPayload outgoing) ? outgoing : null;
			// the model call's number, like the segment, is no text
			int iteration = (hook.getInput() instanceof ModelRequestPayload request) ? request.iteration() : 0;
			this.hooks.add(new Entry(
					new SegmentedReplies.Invocation(recorded, outgoingModify,
							(payload != null) ? payload.segment() : -1, payload != null && payload.finalSegment()),
					iteration));
			changed();
		}

		/**
		 * The invocation's outcome as the console shows it: a tool-call modify hook that
		 * proceeded with a refusal refused the call (it did not run), though for the
		 * runner, and so the observation, the hook proceeded.
		 */
		private static String outcome(HookObservationContext hook, boolean modify) {
			if (modify && PROCEEDED.equals(hook.getOutcome()) && hook.getOutput() instanceof ToolCallPayload call
					&& call.refusal() != null) {
				return REFUSED;
			}
			return hook.getOutcome();
		}

		synchronized RecordedTurn view(boolean includeText) {
			long end = (this.endNanos >= 0) ? this.endNanos : System.nanoTime();
			List<Entry> sorted = new ArrayList<>(this.hooks);
			sorted.sort(Comparator.comparingDouble((entry) -> entry.invocation().hook().startMs()));
			List<RecordedHook> labelled = ModelCallAttempts.label(sorted.stream()
				.map((entry) -> new ModelCallAttempts.Row(entry.invocation().hook(), entry.iteration()))
				.toList());
			List<SegmentedReplies.Invocation> invocations = new ArrayList<>(sorted.size());
			for (int i = 0; i < sorted.size(); i++) {
				SegmentedReplies.Invocation invocation = sorted.get(i).invocation();
				invocations.add(new SegmentedReplies.Invocation(labelled.get(i), invocation.outgoingModify(),
						invocation.segment(), invocation.finalSegment()));
			}
			return new RecordedTurn(this.id, this.senderId, this.channel, this.conversationId, this.agent,
					(this.outcome != null) ? this.outcome : "running", this.start, millis(end - this.startNanos),
					this.approvalId, SegmentedReplies.group(invocations, includeText),
					includeText ? PayloadText.firstWords(userText()) : null);
		}

		private @Nullable String userText() {
			return (this.texts != null) ? this.texts.getUserText() : this.userText;
		}

		private static double millis(long nanos) {
			return Math.round(Math.max(0, nanos) / 10_000.0) / 100.0;
		}

		/**
		 * An invocation and its model call's number ({@code 0} when not known).
		 */
		private record Entry(SegmentedReplies.Invocation invocation, int iteration) {

		}

	}

	/**
	 * What changed in the list since a version of it.
	 *
	 * @param version the list's version now, for the next poll
	 * @param complete whether {@code turns} is the whole list (the client replaces what
	 * it has); otherwise only the turns new or changed since (the client merges them)
	 * @param turns the turns, newest first
	 * @param removed the turns that left the list since, oldest first; empty when
	 * {@code complete}
	 */
	public record Changes(String version, boolean complete, List<RecordedTurn> turns, List<String> removed) {

	}

}
