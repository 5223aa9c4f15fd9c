package io.mantlehooks.console;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * Folds the invocations of outgoing-text modify hooks on a reply streamed in segments
 * into one row per reply: the engine invokes each {@code StreamMode.SENTENCES} hook once
 * per sentence, which would otherwise be dozens of rows that say little apart.
 * <p>
 * A reply starts with an invocation on segment 0 that is not the final one (a whole reply
 * is segment 0 and final, and stays a row of its own, as before segments existed). Later
 * outgoing-text modify invocations join it while they continue it: the same or the next
 * segment, each hook once per segment, and after the final segment only the other hooks
 * on it. A rejection ends the reply. The first invocation that does not continue it (a
 * later reply, or a whole-reply hook) closes it. Invocations of other points and
 * observers are left where they are.
 */
final class SegmentedReplies {

	/**
	 * Outcomes from worst to least bad; {@code rejected} first, since a rejection ends
	 * the reply and is what an operator looks for.
	 */
	private static final List<String> SEVERITY = List.of("rejected", "crash", "invalid_return", "timeout",
			"bulkhead_full", "circuit_open", "signal_discarded", "retried", "dropped");

	private static final String PROCEEDED = "proceeded";

	private SegmentedReplies() {
	}

	/**
	 * Group the invocations of a turn.
	 * @param invocations the turn's invocations in start order
	 * @param includeText whether texts were kept, so the retracted text can be told
	 * @return the rows, in start order of their first invocation
	 */
	static List<RecordedHook> group(List<Invocation> invocations, boolean includeText) {
		List<Object> rows = new ArrayList<>(invocations.size());
		Reply open = null;
		for (Invocation invocation : invocations) {
			if (!invocation.outgoingModify()) {
				rows.add(invocation.hook());
				continue;
			}
			if (open != null && open.continuedBy(invocation)) {
				open.add(invocation);
				continue;
			}
			open = null;
			if (invocation.segment() == 0 && !invocation.finalSegment()) {
				open = new Reply(invocation);
				rows.add(open);
			}
			else {
				rows.add(invocation.hook());
			}
		}
		return rows.stream()
			.map((row) -> (row instanceof Reply reply) ? reply.row(includeText) : (RecordedHook) row)
			.toList();
	}

	/**
	 * Return the worse of two outcomes.
	 */
	private static String worse(String first, String second) {
		return (rank(second) < rank(first)) ? second : first;
	}

	private static int rank(String outcome) {
		int index = SEVERITY.indexOf(outcome);
		if (index >= 0) {
			return index;
		}
		// an outcome this list does not know is still worse than proceeding
		return PROCEEDED.equals(outcome) ? SEVERITY.size() + 1 : SEVERITY.size();
	}

	/**
	 * One recorded invocation, with where it sits in a reply when it is an outgoing-text
	 * modify invocation.
	 *
	 * @param hook the invocation's row
	 * @param outgoingModify whether it is a modify hook at the outgoing-text point
	 * @param segment its payload's segment, {@code -1} when it had no payload (a hook
	 * that was not called: circuit open, bulkhead full)
	 * @param finalSegment whether its payload was the final segment
	 */
	record Invocation(RecordedHook hook, boolean outgoingModify, int segment, boolean finalSegment) {

	}

	/**
	 * A reply being folded.
	 */
	private static final class Reply {

		private final List<RecordedHook.Segment> invocations = new ArrayList<>();

		/**
		 * A reply's hooks run for the agent whose turn replies (nested calls have none).
		 */
		private final String agent;

		/** The segments each hook was invoked on, by hook; a hook runs once a segment. */
		private final List<String> hooks = new ArrayList<>();

		private final List<Integer> lastSegmentOfHook = new ArrayList<>();

		private int current;

		private boolean finalSeen;

		private @Nullable Integer rejected;

		Reply(Invocation first) {
			this.agent = first.hook().agent();
			add(first);
		}

		boolean continuedBy(Invocation invocation) {
			if (this.rejected != null) {
				return false;
			}
			int index = this.hooks.indexOf(invocation.hook().hook());
			int last = (index >= 0) ? this.lastSegmentOfHook.get(index) : -1;
			if (invocation.segment() < 0) {
				// no payload: it belongs here while the reply still has segments to
				// come for this hook
				return !(this.finalSeen && last == this.current);
			}
			if (invocation.segment() <= last) {
				return false;
			}
			if (this.finalSeen) {
				return invocation.segment() == this.current && invocation.finalSegment();
			}
			if (invocation.segment() == this.current) {
				// the segment's finality is the same for every hook on it
				return !invocation.finalSegment() || this.current > 0;
			}
			return invocation.segment() == this.current + 1;
		}

		void add(Invocation invocation) {
			RecordedHook hook = invocation.hook();
			int index = this.hooks.indexOf(hook.hook());
			int segment = invocation.segment();
			if (segment < 0) {
				// a hook that was not called: the segment after its last, or the
				// current one when it has none yet
				segment = (index >= 0) ? this.lastSegmentOfHook.get(index) + 1 : this.current;
			}
			boolean finalSegment = invocation.finalSegment() || (this.finalSeen && segment == this.current);
			if (index >= 0) {
				this.lastSegmentOfHook.set(index, segment);
			}
			else {
				this.hooks.add(hook.hook());
				this.lastSegmentOfHook.add(segment);
			}
			this.current = Math.max(this.current, segment);
			this.finalSeen |= finalSegment;
			if ("rejected".equals(hook.outcome())) {
				this.rejected = segment;
			}
			this.invocations.add(new RecordedHook.Segment(segment, finalSegment, hook.hook(), hook.startMs(),
					hook.durationMs(), hook.queuedMs(), hook.outcome(), hook.before(), hook.after()));
		}

		RecordedHook row(boolean includeText) {
			RecordedHook.Segment first = this.invocations.get(0);
			double total = 0;
			double queued = 0;
			String outcome = PROCEEDED;
			Set<Integer> segments = new TreeSet<>();
			Set<String> names = new LinkedHashSet<>();
			for (RecordedHook.Segment invocation : this.invocations) {
				total += invocation.durationMs();
				queued += invocation.queuedMs();
				outcome = worse(outcome, invocation.outcome());
				segments.add(invocation.segment());
				names.add(invocation.hook());
			}
			String retracted = (this.rejected != null && includeText) ? shownBefore(this.rejected) : null;
			return new RecordedHook("outgoing-text", "modify", String.join(", ", names), this.agent, first.startMs(),
					Math.round(total * 100) / 100.0, Math.round(queued * 100) / 100.0, outcome, null, null,
					new RecordedHook.Segments(segments.size(), this.rejected, retracted,
							List.copyOf(this.invocations)));
		}

		/**
		 * What went out of the segments before the given one: per segment, the text its
		 * last hook proceeded with or, when that hook failed open or was not called, the
		 * text it was given (walking back to the hook before when it had none).
		 */
		private String shownBefore(int rejectedSegment) {
			StringBuilder shown = new StringBuilder();
			for (int segment = 0; segment < rejectedSegment; segment++) {
				String text = null;
				for (int i = this.invocations.size() - 1; i >= 0 && text == null; i--) {
					RecordedHook.Segment invocation = this.invocations.get(i);
					if (invocation.segment() == segment) {
						text = (invocation.after() != null) ? invocation.after() : invocation.before();
					}
				}
				shown.append((text != null) ? text : "");
			}
			return shown.toString();
		}

	}

}
