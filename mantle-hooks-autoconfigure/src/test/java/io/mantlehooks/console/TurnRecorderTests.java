package io.mantlehooks.console;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.test.TestPayloads;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The recorder's bounds and what it keeps of each invocation, driven through its
 * observation callbacks as the registry calls them.
 */
class TurnRecorderTests {

	@Test
	void aTurnKeepsAtMostItsFirst500InvocationsInStartOrder() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-1");
		for (int i = 0; i < 600; i++) {
			hook(recorder, "t-1", "hooks.observer" + i, "observe", "proceeded", null, null);
		}
		stop(recorder, turn, "completed");
		RecordedTurn recorded = recorder.turn("t-1").orElseThrow();
		assertThat(recorded.hooks()).hasSize(TurnRecorder.MAX_HOOKS_PER_TURN);
		assertThat(recorded.hooks().get(0).hook()).isEqualTo("hooks.observer0");
		assertThat(recorded.hooks()).extracting(RecordedHook::hook).doesNotContain("hooks.observer500");
		assertThat(recorded.outcome()).isEqualTo("completed");
	}

	@Test
	void textsAreCappedAndKeptOnlyForModifyHooksThatAskedForThem() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-2");
		String longText = "a".repeat(5_000);
		hook(recorder, "t-2", "hooks.rewrite", "modify", "proceeded", TestPayloads.incomingMessage(longText).build(),
				TestPayloads.incomingMessage("short").build());
		hook(recorder, "t-2", "hooks.watch", "observe", "proceeded", TestPayloads.incomingMessage("seen").build(),
				null);
		stop(recorder, turn, "completed");
		RecordedHook modify = recorder.turn("t-2").orElseThrow().hooks().get(0);
		assertThat(modify.before()).hasSize(2_001).startsWith("aaaa").endsWith("…");
		assertThat(modify.after()).isEqualTo("short");
		RecordedHook observer = recorder.turn("t-2").orElseThrow().hooks().get(1);
		assertThat(observer.before()).isNull();
		assertThat(observer.after()).isNull();
	}

	@Test
	void eachRowSaysHowLongItsHookWaitedForAThread() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-q");
		HookObservationContext hook = new HookObservationContext("hooks.redact", HookPoint.MODEL_REQUEST, "modify",
				"t-q");
		recorder.onStart(hook);
		hook.setOutcome("proceeded");
		hook.setQueued(Duration.ofMillis(3));
		recorder.onStop(hook);
		hook(recorder, "t-q", "hooks.watch", "observe", "proceeded", null, null);
		stop(recorder, turn, "completed");
		assertThat(recorder.turn("t-q").orElseThrow().hooks()).extracting(RecordedHook::queuedMs)
			.containsExactly(3.0, 0.0);
	}

	@Test
	void aRefusedToolCallShowsItsRefusal() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-r");
		ToolCallPayload call = new ToolCallPayload("refund", Map.of("order", "43"), Map.of(), Map.of(), "u-1", Map.of(),
				Channel.of("web"));
		hook(recorder, "t-r", "guards.preflight", "modify", "proceeded", call,
				call.withRefusal("Refunds above 1000 EUR need a manager"));
		stop(recorder, turn, "completed");
		RecordedHook preflight = recorder.turn("t-r").orElseThrow().hooks().get(0);
		assertThat(preflight.before()).isEqualTo("refund {order=43}");
		assertThat(preflight.after()).isEqualTo("refund {order=43}\nrefused: Refunds above 1000 EUR need a manager");
	}

	@Test
	void aRefusedToolCallsRowSaysRefusedWithOrWithoutTexts() {
		for (boolean includeText : new boolean[] { true, false }) {
			TurnRecorder recorder = new TurnRecorder(10, includeText, Clock.systemUTC());
			TurnObservationContext turn = turn(recorder, "t-r");
			ToolCallPayload call = new ToolCallPayload("refund", Map.of("order", "43"), Map.of(), Map.of(), "u-1",
					Map.of(), Channel.of("web"));
			hook(recorder, "t-r", "guards.preflight", "modify", "proceeded", call,
					call.withRefusal("Refunds above 1000 EUR need a manager"));
			hook(recorder, "t-r", "guards.preflight", "modify", "proceeded", call, call);
			// an observer sees the call, refused or not, and decides nothing
			hook(recorder, "t-r", "audit.toolCall", "observe", "proceeded",
					call.withRefusal("Refunds above 1000 EUR need a manager"), null);
			stop(recorder, turn, "completed");
			assertThat(recorder.turn("t-r").orElseThrow().hooks()).extracting(RecordedHook::outcome)
				.containsExactly("refused", "proceeded", "proceeded");
			assertThat(recorder.turns().get(0).hooks()).extracting(RecordedHook::outcome)
				.containsExactly("refused", "proceeded", "proceeded");
		}
	}

	@Test
	void withoutTextNothingOfAPayloadIsKept() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = turn(recorder, "t-3");
		hook(recorder, "t-3", "hooks.rewrite", "modify", "proceeded", TestPayloads.incomingMessage("secret").build(),
				TestPayloads.incomingMessage("redacted").build());
		stop(recorder, turn, "completed");
		assertThat(recorder.turn("t-3").orElseThrow().hooks()).singleElement().satisfies((hook) -> {
			assertThat(hook.before()).isNull();
			assertThat(hook.after()).isNull();
		});
	}

	@Test
	void theFirstWordsOfTheUsersMessageOnlyWithTexts() {
		String message = "Where is   my parcel?\nI ordered it two weeks ago and it still has not arrived, thanks";
		for (boolean includeText : new boolean[] { true, false }) {
			TurnRecorder recorder = new TurnRecorder(10, includeText, Clock.systemUTC());
			TurnObservationContext turn = turn(recorder, "t-4");
			turn.setUserText(message);
			stop(recorder, turn, "completed");
			TurnObservationContext silent = turn(recorder, "t-5");
			stop(recorder, silent, "completed");
			String preview = recorder.turn("t-4").orElseThrow().messagePreview();
			if (includeText) {
				assertThat(preview).isEqualTo("Where is my parcel? I ordered it two weeks ago and it still…");
				assertThat(preview).hasSizeLessThanOrEqualTo(60);
			}
			else {
				assertThat(preview).isNull();
			}
			assertThat(recorder.turn("t-5").orElseThrow().messagePreview()).isNull();
		}
	}

	@Test
	void eachTurnKeepsItsAgentWithOrWithoutTexts() {
		for (boolean includeText : new boolean[] { true, false }) {
			TurnRecorder recorder = new TurnRecorder(10, includeText, Clock.systemUTC());
			TurnObservationContext billing = new TurnObservationContext("t-billing", "web");
			billing.setAgent("billing");
			recorder.onStart(billing);
			stop(recorder, billing, "completed");
			// a client that names no agent
			stop(recorder, turn(recorder, "t-default"), "completed");
			TurnObservationContext running = new TurnObservationContext("t-running", "web");
			running.setAgent("support");
			recorder.onStart(running);

			assertThat(recorder.turn("t-billing").orElseThrow().agent()).isEqualTo("billing");
			assertThat(recorder.turn("t-default").orElseThrow().agent()).isEqualTo(MantleHooks.DEFAULT_AGENT);
			assertThat(recorder.turn("t-running").orElseThrow().agent()).isEqualTo("support");
			assertThat(recorder.turns()).extracting(RecordedTurn::agent)
				.containsExactlyInAnyOrder("billing", "default", "support");
		}
	}

	@Test
	void eachRowSaysWhichAgentItsHookRanFor() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = new TurnObservationContext("t-shop", "web");
		turn.setAgent("shop");
		recorder.onStart(turn);
		for (String agent : new String[] { "shop", "copywriter", "shop" }) {
			// a sub-agent called from a tool runs its own hooks within the shop's turn
			HookObservationContext hook = new HookObservationContext("hooks.request", HookPoint.MODEL_REQUEST, "modify",
					"t-shop");
			hook.setAgent(agent);
			recorder.onStart(hook);
			hook.setOutcome("proceeded");
			recorder.onStop(hook);
		}
		stop(recorder, turn, "completed");
		assertThat(recorder.turn("t-shop").orElseThrow().hooks()).extracting(RecordedHook::agent)
			.containsExactly("shop", "copywriter", "shop");
		assertThat(recorder.turns().get(0).hooks().get(0).withoutText().agent()).isEqualTo("shop");
	}

	@Test
	void theOldestTurnsGoFirstAndLateOrStrayInvocationsAreIgnored() {
		TurnRecorder recorder = new TurnRecorder(2, false, Clock.systemUTC());
		for (String id : new String[] { "t-a", "t-b", "t-c" }) {
			stop(recorder, turn(recorder, id), "completed");
		}
		assertThat(recorder.turns()).extracting(RecordedTurn::id).containsExactlyInAnyOrder("t-b", "t-c");
		// an invocation of an evicted or unknown turn, and a stop without a start
		hook(recorder, "t-a", "hooks.late", "observe", "proceeded", null, null);
		recorder.onStop(new HookObservationContext("hooks.never", HookPoint.TURN_STARTED, "observe", "t-b"));
		assertThat(recorder.turn("t-a")).isEmpty();
		assertThat(recorder.turn("t-b").orElseThrow().hooks()).isEmpty();
	}

	@Test
	void aPollGetsTheTurnsNewOrChangedSinceItsVersionAndEveryRunningTurn() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		stop(recorder, turn(recorder, "t-old"), "completed");
		TurnRecorder.Changes whole = recorder.changes(null);
		assertThat(whole.complete()).isTrue();
		assertThat(whole.turns()).extracting(RecordedTurn::id).containsExactly("t-old");

		TurnObservationContext running = turn(recorder, "t-new");
		TurnRecorder.Changes started = recorder.changes(whole.version());
		assertThat(started.complete()).isFalse();
		assertThat(started.turns()).extracting(RecordedTurn::id).containsExactly("t-new");
		// still running: sent again, its duration grows
		assertThat(recorder.changes(started.version()).turns()).extracting(RecordedTurn::id).containsExactly("t-new");
		stop(recorder, running, "completed");
		TurnRecorder.Changes finished = recorder.changes(started.version());
		assertThat(finished.turns()).singleElement().satisfies((turn) -> {
			assertThat(turn.id()).isEqualTo("t-new");
			assertThat(turn.outcome()).isEqualTo("completed");
		});
		TurnRecorder.Changes unchanged = recorder.changes(finished.version());
		assertThat(unchanged.turns()).isEmpty();
		assertThat(unchanged.removed()).isEmpty();
		assertThat(unchanged.version()).isEqualTo(finished.version());
		// an observer that reports after its turn ended changes the turn
		hook(recorder, "t-old", "hooks.late", "observe", "proceeded", null, null);
		assertThat(recorder.changes(unchanged.version()).turns()).extracting(RecordedTurn::id).containsExactly("t-old");
	}

	@Test
	void aPollNamesTheTurnsThatLeftTheListOrGetsTheWholeListWhenItIsTooFarBehind() {
		TurnRecorder recorder = new TurnRecorder(2, false, Clock.systemUTC());
		stop(recorder, turn(recorder, "t-a"), "completed");
		String before = recorder.changes(null).version();
		stop(recorder, turn(recorder, "t-b"), "completed");
		stop(recorder, turn(recorder, "t-c"), "completed");
		TurnRecorder.Changes changes = recorder.changes(before);
		assertThat(changes.complete()).isFalse();
		assertThat(changes.turns()).extracting(RecordedTurn::id).containsExactly("t-c", "t-b");
		assertThat(changes.removed()).containsExactly("t-a");
		// more turns left than the recorder remembers: the whole list
		for (String id : new String[] { "t-d", "t-e", "t-f" }) {
			stop(recorder, turn(recorder, id), "completed");
		}
		TurnRecorder.Changes behind = recorder.changes(changes.version());
		assertThat(behind.complete()).isTrue();
		assertThat(behind.turns()).extracting(RecordedTurn::id).containsExactly("t-f", "t-e");
		assertThat(behind.removed()).isEmpty();
	}

	@Test
	void aVersionOfAnotherRecorderGetsTheWholeListAndNoVersionIsRefused() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		stop(recorder, turn(recorder, "t-a"), "completed");
		String other = new TurnRecorder(10, false, Clock.systemUTC()).changes(null).version();
		assertThat(recorder.changes(other).complete()).isTrue();
		String version = recorder.changes(null).version();
		String epoch = version.substring(0, version.indexOf('.'));
		for (String bad : new String[] { "", "42", "x", epoch + ".", epoch + ".-1", epoch + ".9", "." + version,
				version + "0" }) {
			assertThatIllegalArgumentException().as(bad)
				.isThrownBy(() -> recorder.changes(bad))
				.withMessageContaining("send the 'version' of an earlier answer");
		}
	}

	@Test
	void aRunningTurnSaysSoAndBadSettingsAreRefused() {
		TurnRecorder recorder = new TurnRecorder(1, false, Clock.systemUTC());
		turn(recorder, "t-run");
		assertThat(recorder.turn("t-run").orElseThrow().outcome()).isEqualTo("running");
		assertThatIllegalArgumentException().isThrownBy(() -> new TurnRecorder(0, false, Clock.systemUTC()))
			.withMessage("'maxTurns' must be positive");
	}

	static TurnObservationContext turn(TurnRecorder recorder, String id) {
		TurnObservationContext turn = new TurnObservationContext(id, "web");
		recorder.onStart(turn);
		return turn;
	}

	static void stop(TurnRecorder recorder, TurnObservationContext turn, String outcome) {
		turn.setOutcome(outcome);
		recorder.onStop(turn);
	}

	private static void hook(TurnRecorder recorder, String turnId, String name, String lane, String outcome,
			Object input, Object output) {
		HookObservationContext hook = new HookObservationContext(name, HookPoint.INCOMING_MESSAGE, lane, turnId);
		hook.setInput(input);
		recorder.onStart(hook);
		hook.setOutcome(outcome);
		hook.setOutput(output);
		recorder.onStop(hook);
	}

}
