package io.mantlehooks.console;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.test.TestPayloads;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A reply streamed in segments shows as one outgoing-text row: its segment invocations,
 * their count and total time, any rejection and what the rejection retracted (only with
 * texts). The recorder is fed the observation contexts as the engine reports a
 * {@code StreamMode.SENTENCES} hook: one {@code mantle.hook} observation per segment,
 * whose input is the segment's {@link OutgoingTextPayload}.
 */
class SegmentedReplyRecordingTests {

	private static final List<String> SENTENCES = List.of("Refunded 30 EUR. ", "It arrives in 3 days. ",
			"Buy crypto now! ", "Anything else?");

	@Test
	void aStreamedReplysSegmentInvocationsAreOneRow() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-1");
		modify(recorder, "t-1", HookPoint.MODEL_RESPONSE, "hooks.checkReply", "proceeded", null, null);
		for (int i = 0; i < 4; i++) {
			segment(recorder, "t-1", "hooks.houseStyle", i, i == 3, "proceeded", SENTENCES.get(i),
					SENTENCES.get(i).replace("30 EUR", "€30.00"));
		}
		observe(recorder, "t-1", HookPoint.OUTGOING_TEXT, "hooks.audit");
		stop(recorder, turn, "completed");

		List<RecordedHook> rows = recorder.turn("t-1").orElseThrow().hooks();
		assertThat(rows).extracting(RecordedHook::hook)
			.containsExactly("hooks.checkReply", "hooks.houseStyle", "hooks.audit");
		assertThat(rows.get(0).segments()).isNull();
		assertThat(rows.get(2).segments()).isNull();
		RecordedHook reply = rows.get(1);
		assertThat(reply.point()).isEqualTo("outgoing-text");
		assertThat(reply.lane()).isEqualTo("modify");
		assertThat(reply.outcome()).isEqualTo("proceeded");
		assertThat(reply.before()).isNull();
		assertThat(reply.after()).isNull();
		RecordedHook.Segments segments = reply.segments();
		assertThat(segments.count()).isEqualTo(4);
		assertThat(segments.rejectedSegment()).isNull();
		assertThat(segments.retracted()).isNull();
		assertThat(segments.invocations()).extracting(RecordedHook.Segment::segment).containsExactly(0, 1, 2, 3);
		assertThat(segments.invocations()).extracting(RecordedHook.Segment::finalSegment)
			.containsExactly(false, false, false, true);
		assertThat(segments.invocations().get(0).before()).isEqualTo("Refunded 30 EUR. ");
		assertThat(segments.invocations().get(0).after()).isEqualTo("Refunded €30.00. ");
		assertThat(reply.startMs()).isEqualTo(segments.invocations().get(0).startMs());
		assertThat(reply.durationMs()).isCloseTo(
				segments.invocations().stream().mapToDouble(RecordedHook.Segment::durationMs).sum(), within(0.02));
	}

	@Test
	void aRejectedSegmentEndsTheRowAndShowsWhatWasRetracted() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-2");
		streamRejectedOnSegment2(recorder, "t-2");
		stop(recorder, turn, "rejected");

		RecordedTurn recorded = recorder.turn("t-2").orElseThrow();
		assertThat(recorded.outcome()).isEqualTo("rejected");
		RecordedHook reply = recorded.hooks().get(0);
		assertThat(reply.outcome()).isEqualTo("rejected");
		RecordedHook.Segments segments = reply.segments();
		assertThat(segments.count()).isEqualTo(3);
		assertThat(segments.rejectedSegment()).isEqualTo(2);
		assertThat(segments.invocations()).extracting(RecordedHook.Segment::outcome)
			.containsExactly("proceeded", "proceeded", "rejected");
		// what the user had been shown: the rewritten segments before the rejected one
		assertThat(segments.retracted()).isEqualTo("Refunded €30.00. It arrives in 3 days. ");
		// the rejection's reply, hooked as a whole reply of its own, is a row of its own
		assertThat(recorded.hooks()).hasSize(2);
		assertThat(recorded.hooks().get(1).segments()).isNull();
		assertThat(recorded.hooks().get(1).before()).isEqualTo("Sorry, I can only help with your orders.");
	}

	@Test
	void withoutTextTheRowKeepsItsSegmentsAndRejectionButNoText() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-3");
		streamRejectedOnSegment2(recorder, "t-3");
		stop(recorder, turn, "rejected");

		RecordedHook reply = recorder.turn("t-3").orElseThrow().hooks().get(0);
		assertThat(reply.outcome()).isEqualTo("rejected");
		assertThat(reply.segments().count()).isEqualTo(3);
		assertThat(reply.segments().rejectedSegment()).isEqualTo(2);
		assertThat(reply.segments().retracted()).isNull();
		assertThat(reply.segments().invocations()).extracting(RecordedHook.Segment::segment).containsExactly(0, 1, 2);
		assertThat(reply.segments().invocations()).allSatisfy((invocation) -> {
			assertThat(invocation.before()).isNull();
			assertThat(invocation.after()).isNull();
		});
		assertThat(json(recorder.turn("t-3").orElseThrow()).toString()).doesNotContain("Refunded", "arrives", "crypto",
				"Sorry");
	}

	@Test
	void aRejectionOnTheFirstSegmentRetractsNothing() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-4");
		segment(recorder, "t-4", "hooks.houseStyle", 0, false, "rejected", "Buy crypto now! ", null);
		stop(recorder, turn, "rejected");

		RecordedHook.Segments segments = recorder.turn("t-4").orElseThrow().hooks().get(0).segments();
		assertThat(segments.count()).isEqualTo(1);
		assertThat(segments.rejectedSegment()).isZero();
		assertThat(segments.retracted()).isEmpty();
	}

	@Test
	void twoSegmentHooksShareTheRowAndTheRetractedTextIsWhatWentOut() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-5");
		// segment 0: both rewrite; segment 1: the second crashes and fails open (the
		// first's text goes out); segment 2: the second is not called (its circuit is
		// open: no payload); segment 3: the first rejects, the second never runs
		segment(recorder, "t-5", "hooks.houseStyle", 0, false, "proceeded", "Refunded 30 EUR. ", "Refunded €30.00. ");
		segment(recorder, "t-5", "hooks.polite", 0, false, "proceeded", "Refunded €30.00. ", "Done: €30.00. ");
		segment(recorder, "t-5", "hooks.houseStyle", 1, false, "proceeded", "Soon. ", "Soon! ");
		segment(recorder, "t-5", "hooks.polite", 1, false, "crash", "Soon! ", null);
		segment(recorder, "t-5", "hooks.houseStyle", 2, false, "proceeded", "Bye. ", "Bye. ");
		modify(recorder, "t-5", HookPoint.OUTGOING_TEXT, "hooks.polite", "circuit_open", null, null);
		segment(recorder, "t-5", "hooks.houseStyle", 3, true, "rejected", "Buy crypto! ", null);
		stop(recorder, turn, "rejected");

		List<RecordedHook> rows = recorder.turn("t-5").orElseThrow().hooks();
		assertThat(rows).singleElement().satisfies((reply) -> {
			assertThat(reply.hook()).isEqualTo("hooks.houseStyle, hooks.polite");
			assertThat(reply.outcome()).isEqualTo("rejected");
			assertThat(reply.segments().count()).isEqualTo(4);
			assertThat(reply.segments().invocations()).extracting(RecordedHook.Segment::segment)
				.containsExactly(0, 0, 1, 1, 2, 2, 3);
			assertThat(reply.segments().retracted()).isEqualTo("Done: €30.00. Soon! Bye. ");
		});
	}

	@Test
	void theRowsOutcomeIsItsWorstInvocationsWhenNoneRejected() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-6");
		segment(recorder, "t-6", "hooks.houseStyle", 0, false, "proceeded", "One. ", "One. ");
		segment(recorder, "t-6", "hooks.houseStyle", 1, false, "timeout", "Two. ", null);
		segment(recorder, "t-6", "hooks.houseStyle", 2, true, "proceeded", "Three.", "Three.");
		stop(recorder, turn, "completed");

		RecordedHook reply = recorder.turn("t-6").orElseThrow().hooks().get(0);
		assertThat(reply.outcome()).isEqualTo("timeout");
		assertThat(reply.segments().rejectedSegment()).isNull();
		assertThat(reply.segments().retracted()).isNull();
	}

	@Test
	void aWholeReplyIsARowAsBeforeAndSeparateRepliesAreSeparateRows() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-7");
		// a whole-reply hook (segment 0 and final), then two streamed replies, then a
		// whole-reply hook again
		whole(recorder, "t-7", "hooks.footer", "Hello.", "Hello. -- Shop");
		segment(recorder, "t-7", "hooks.houseStyle", 0, false, "proceeded", "A. ", "A. ");
		segment(recorder, "t-7", "hooks.houseStyle", 1, true, "proceeded", "B.", "B.");
		segment(recorder, "t-7", "hooks.houseStyle", 0, false, "proceeded", "C. ", "C. ");
		segment(recorder, "t-7", "hooks.houseStyle", 1, true, "proceeded", "D.", "D.");
		whole(recorder, "t-7", "hooks.footer", "A. B.", "A. B. -- Shop");
		stop(recorder, turn, "completed");

		List<RecordedHook> rows = recorder.turn("t-7").orElseThrow().hooks();
		assertThat(rows).extracting(RecordedHook::hook)
			.containsExactly("hooks.footer", "hooks.houseStyle", "hooks.houseStyle", "hooks.footer");
		assertThat(rows.get(0)).satisfies((whole) -> {
			assertThat(whole.segments()).isNull();
			assertThat(whole.before()).isEqualTo("Hello.");
			assertThat(whole.after()).isEqualTo("Hello. -- Shop");
		});
		assertThat(rows.get(1).segments().invocations()).extracting(RecordedHook.Segment::before)
			.containsExactly("A. ", "B.");
		assertThat(rows.get(2).segments().invocations()).extracting(RecordedHook.Segment::before)
			.containsExactly("C. ", "D.");
		assertThat(rows.get(3).segments()).isNull();

		// a whole reply's JSON has no segments, and says how long each hook waited
		JsonNode json = json(recorder.turn("t-7").orElseThrow()).get("hooks");
		assertThat(json.get(0).propertyNames()).containsExactly("point", "lane", "hook", "agent", "startMs",
				"durationMs", "queuedMs", "outcome", "before", "after");
		assertThat(json.get(1).get("agent").asString()).isEqualTo("default");
		assertThat(json.get(1).get("segments").get("count").asInt()).isEqualTo(2);
		assertThat(json.get(1).get("segments").get("invocations").get(1).get("finalSegment").asBoolean()).isTrue();
	}

	@Test
	void theConsolesListLeavesOutEveryTextOfTheRow() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-8");
		streamRejectedOnSegment2(recorder, "t-8");
		stop(recorder, turn, "rejected");
		TurnConsole console = new TurnConsole(recorder, null, null, null, Clock.systemUTC());

		RecordedTurn listed = console.turns().turns().get(0);
		RecordedHook reply = listed.hooks().get(0);
		assertThat(reply.segments().rejectedSegment()).isEqualTo(2);
		assertThat(reply.segments().retracted()).isNull();
		assertThat(json(listed).toString()).doesNotContain("Refunded", "arrives", "crypto", "Sorry");
		// the turn's own detail has them
		assertThat(console.turn("t-8").orElseThrow().turn().hooks().get(0).segments().retracted())
			.isEqualTo("Refunded €30.00. It arrives in 3 days. ");
	}

	/**
	 * Segments 0 and 1 rewritten, segment 2 rejected (the reply ends, segment 3 never
	 * comes), then the rejection's reply through the outgoing-text hook as a whole reply.
	 */
	private static void streamRejectedOnSegment2(TurnRecorder recorder, String turnId) {
		for (int i = 0; i < 2; i++) {
			segment(recorder, turnId, "hooks.houseStyle", i, false, "proceeded", SENTENCES.get(i),
					SENTENCES.get(i).replace("30 EUR", "€30.00"));
		}
		segment(recorder, turnId, "hooks.houseStyle", 2, false, "rejected", SENTENCES.get(2), null);
		whole(recorder, turnId, "hooks.houseStyle", "Sorry, I can only help with your orders.",
				"Sorry, I can only help with your orders.");
	}

	private static JsonNode json(RecordedTurn turn) {
		JsonMapper mapper = JsonMapper.builder().build();
		return mapper.readTree(mapper.writeValueAsString(turn));
	}

	private static TurnObservationContext turn(TurnRecorder recorder, String id) {
		return TurnRecorderTests.turn(recorder, id);
	}

	private static void stop(TurnRecorder recorder, TurnObservationContext turn, String outcome) {
		TurnRecorderTests.stop(recorder, turn, outcome);
	}

	private static void segment(TurnRecorder recorder, String turnId, String name, int segment, boolean finalSegment,
			String outcome, String before, String after) {
		OutgoingTextPayload payload = new OutgoingTextPayload(before, false, "u-1", Map.of(), Channel.of("web"),
				segment, finalSegment);
		modify(recorder, turnId, HookPoint.OUTGOING_TEXT, name, outcome, payload,
				(after != null) ? payload.withText(after) : null);
	}

	private static void whole(TurnRecorder recorder, String turnId, String name, String before, String after) {
		modify(recorder, turnId, HookPoint.OUTGOING_TEXT, name, "proceeded", TestPayloads.outgoingText(before).build(),
				TestPayloads.outgoingText(after).build());
	}

	private static void observe(TurnRecorder recorder, String turnId, HookPoint point, String name) {
		HookObservationContext hook = new HookObservationContext(name, point, "observe", turnId);
		hook.setInput(TestPayloads.outgoingText("seen").build());
		recorder.onStart(hook);
		hook.setOutcome("proceeded");
		recorder.onStop(hook);
	}

	private static void modify(TurnRecorder recorder, String turnId, HookPoint point, String name, String outcome,
			Object input, Object output) {
		HookObservationContext hook = new HookObservationContext(name, point, "modify", turnId);
		hook.setInput(input);
		recorder.onStart(hook);
		hook.setOutcome(outcome);
		hook.setOutput(output);
		recorder.onStop(hook);
	}

}
