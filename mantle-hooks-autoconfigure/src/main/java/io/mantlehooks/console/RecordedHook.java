package io.mantlehooks.console;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * One recorded hook invocation, or the outgoing-text row of a reply streamed in segments:
 * then {@code segments} holds its invocations, one or more per segment.
 *
 * @param point the point's configuration name, e.g. {@code model-request}
 * @param lane {@code modify} (awaited, on the turn's critical path) or {@code observe}
 * (never awaited)
 * @param hook {@code beanName.methodName}; for a segmented reply its hooks' names, in
 * order of their first invocation, joined by {@code ", "}
 * @param agent the agent the hook ran for: the turn's agent or, for a sub-agent's call
 * within the turn (a {@code ChatClient} of another agent called from a tool), that agent
 * @param startMs when it was handed to the executor, from the turn's start
 * @param durationMs how long until its outcome was known; for a segmented reply the sum
 * of its invocations' durations
 * @param queuedMs how much of that it waited for a thread before its method started: the
 * machine's time, not counted against the hook's timeout; for a segmented reply the sum
 * of its invocations' waits
 * @param outcome {@code proceeded}, {@code rejected}, {@code retried}, {@code timeout},
 * {@code crash}, ...; {@code refused} for a tool-call modify hook that proceeded with a
 * refusal ({@code ToolCallPayload.withRefusal}: the call did not run; its
 * {@code mantle.hook} observation says {@code proceeded}); for a segmented reply
 * {@code rejected} when a segment was, else the worst of its invocations'
 * @param before the payload's text before a modify hook, only with
 * {@code mantle.hooks.console.include-text=true}; {@code null} for a segmented reply
 * (each invocation has its own)
 * @param after the payload's text the modify hook proceeded with, likewise
 * @param segments the invocations of a reply streamed in segments, {@code null} (and left
 * out of the JSON) for every other row
 * @param attempt for a model-request or model-response row of a model call that was
 * retried ({@code RetryModel}) or is a retry: which attempt of that call it belongs to,
 * from 1; {@code null} (and left out of the JSON) for every other row (see
 * {@link ModelCallAttempts})
 */
public record RecordedHook(String point, String lane, String hook, String agent, double startMs, double durationMs,
		double queuedMs, String outcome, @Nullable String before, @Nullable String after,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Segments segments,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer attempt) {

	/**
	 * Create the row of one invocation.
	 * @param point the point's configuration name
	 * @param lane {@code modify} or {@code observe}
	 * @param hook {@code beanName.methodName}
	 * @param agent the agent the hook ran for
	 * @param startMs when it was handed to the executor, from the turn's start
	 * @param durationMs how long until its outcome was known
	 * @param queuedMs how much of that it waited for a thread
	 * @param outcome its outcome
	 * @param before the payload's text before a modify hook
	 * @param after the payload's text the modify hook proceeded with
	 */
	public RecordedHook(String point, String lane, String hook, String agent, double startMs, double durationMs,
			double queuedMs, String outcome, @Nullable String before, @Nullable String after) {
		this(point, lane, hook, agent, startMs, durationMs, queuedMs, outcome, before, after, null, null);
	}

	/**
	 * Create a row that is no attempt of a retried model call.
	 * @param point the point's configuration name
	 * @param lane {@code modify} or {@code observe}
	 * @param hook {@code beanName.methodName}, or the names of a segmented reply's hooks
	 * @param agent the agent the hook ran for
	 * @param startMs when it was handed to the executor, from the turn's start
	 * @param durationMs how long until its outcome was known
	 * @param queuedMs how much of that it waited for a thread
	 * @param outcome its outcome
	 * @param before the payload's text before a modify hook
	 * @param after the payload's text the modify hook proceeded with
	 * @param segments the invocations of a reply streamed in segments
	 */
	public RecordedHook(String point, String lane, String hook, String agent, double startMs, double durationMs,
			double queuedMs, String outcome, @Nullable String before, @Nullable String after,
			@Nullable Segments segments) {
		this(point, lane, hook, agent, startMs, durationMs, queuedMs, outcome, before, after, segments, null);
	}

	/**
	 * Return this row as an attempt of a retried model call.
	 * @param attempt the attempt, from 1
	 * @return the labelled row
	 */
	public RecordedHook withAttempt(int attempt) {
		return new RecordedHook(this.point, this.lane, this.hook, this.agent, this.startMs, this.durationMs,
				this.queuedMs, this.outcome, this.before, this.after, this.segments, attempt);
	}

	/**
	 * Return this row with no text: no before and after, here and in its segments, and no
	 * retracted text.
	 * @return the row without texts
	 */
	public RecordedHook withoutText() {
		return new RecordedHook(this.point, this.lane, this.hook, this.agent, this.startMs, this.durationMs,
				this.queuedMs, this.outcome, null, null, (this.segments != null) ? this.segments.withoutText() : null,
				this.attempt);
	}

	/**
	 * The invocations of a reply's outgoing-text modify hooks when the reply was streamed
	 * in segments (sentences).
	 *
	 * @param count how many segments were hooked
	 * @param rejectedSegment the segment a hook rejected, which ended the reply;
	 * {@code null} when none was
	 * @param retracted what the user had been shown before the rejection (the rewritten
	 * segments before the rejected one, concatenated) and the rejection's reply replaced,
	 * {@code ""} when nothing had been shown; {@code null} when no segment was rejected
	 * or texts are not included
	 * @param invocations the invocations, in order
	 */
	public record Segments(int count, @Nullable Integer rejectedSegment, @Nullable String retracted,
			List<Segment> invocations) {

		Segments withoutText() {
			return new Segments(this.count, this.rejectedSegment, null,
					this.invocations.stream().map(Segment::withoutText).toList());
		}

	}

	/**
	 * One invocation of an outgoing-text modify hook on one segment of a reply.
	 *
	 * @param segment which segment, 0-based
	 * @param finalSegment whether it is the reply's last segment
	 * @param hook {@code beanName.methodName}
	 * @param startMs when it was handed to the executor, from the turn's start
	 * @param durationMs how long until its outcome was known
	 * @param queuedMs how much of that it waited for a thread
	 * @param outcome its outcome
	 * @param before the segment's text before the hook, only with
	 * {@code mantle.hooks.console.include-text=true}
	 * @param after the segment's text the hook proceeded with, likewise
	 */
	public record Segment(int segment, boolean finalSegment, String hook, double startMs, double durationMs,
			double queuedMs, String outcome, @Nullable String before, @Nullable String after) {

		Segment withoutText() {
			return new Segment(this.segment, this.finalSegment, this.hook, this.startMs, this.durationMs, this.queuedMs,
					this.outcome, null, null);
		}

	}

}
