package io.mantlehooks.console;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.mantlehooks.HookPoint;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.test.TestPayloads;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The attempts of a retried model call as the recorder labels them, driven through its
 * observation callbacks in the order the engine makes them: the model-request payload
 * says which model call a row belongs to, the rows after it follow it, and without
 * model-request hooks the order of the model-response rows does.
 */
class ModelCallAttemptsTests {

	/** Each test records one turn in a recorder of its own. */
	private static final String TURN = "t-1";

	@Test
	void theRowsOfARetriedCallAreItsAttemptsAndACallAfterToolsIsNone() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = TurnRecorderTests.turn(recorder, TURN);
		request(recorder, 1, "guard.redact", "modify");
		request(recorder, 1, "audit.request", "observe");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "retried");
		request(recorder, 2, "guard.redact", "modify");
		request(recorder, 2, "audit.request", "observe");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		hook(recorder, HookPoint.TOOL_CALL, "tools.preflight", "modify", "proceeded");
		hook(recorder, HookPoint.TOOL_RESULT, "tools.redact", "modify", "proceeded");
		// the model call after the tools ran is the next call, not another attempt
		request(recorder, 3, "guard.redact", "modify");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		TurnRecorderTests.stop(recorder, turn, "completed");

		assertThat(labels(recorder.turn(TURN).orElseThrow())).containsExactly("model-request guard.redact attempt 1",
				"model-request audit.request attempt 1", "model-response grounding.rejectGuesses attempt 1",
				"model-request guard.redact attempt 2", "model-request audit.request attempt 2",
				"model-response grounding.rejectGuesses attempt 2", "tool-call tools.preflight",
				"tool-result tools.redact", "model-request guard.redact", "model-response grounding.rejectGuesses");
	}

	@Test
	void anObserverOfAnEarlierAttemptThatStartsLateKeepsItsAttemptAndTheAttemptsAfterIt() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = TurnRecorderTests.turn(recorder, TURN);
		request(recorder, 1, "guard.redact", "modify");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "retried");
		request(recorder, 2, "guard.redact", "modify");
		// the first attempt's observer waited in the observer queue (a loaded machine)
		// and starts after the second attempt's request hook
		request(recorder, 1, "audit.request", "observe");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		request(recorder, 2, "audit.request", "observe");
		TurnRecorderTests.stop(recorder, turn, "completed");

		assertThat(labels(recorder.turn(TURN).orElseThrow())).containsExactly("model-request guard.redact attempt 1",
				"model-response grounding.rejectGuesses attempt 1", "model-request guard.redact attempt 2",
				"model-request audit.request attempt 1", "model-response grounding.rejectGuesses attempt 2",
				"model-request audit.request attempt 2");
	}

	@Test
	void withoutModelRequestHooksTheResponsesOrderTellsTheCallsApart() {
		TurnRecorder recorder = new TurnRecorder(10, false, Clock.systemUTC());
		TurnObservationContext turn = TurnRecorderTests.turn(recorder, TURN);
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "retried");
		hook(recorder, HookPoint.MODEL_RESPONSE, "audit.response", "observe", "proceeded");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "retried");
		hook(recorder, HookPoint.MODEL_RESPONSE, "audit.response", "observe", "proceeded");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		// a tool-call hook sends the batch back: the model is asked again
		hook(recorder, HookPoint.TOOL_CALL, "tools.preflight", "modify", "retried");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		TurnRecorderTests.stop(recorder, turn, "completed");

		assertThat(labels(recorder.turn(TURN).orElseThrow())).containsExactly(
				"model-response grounding.rejectGuesses attempt 1", "model-response audit.response attempt 1",
				"model-response grounding.rejectGuesses attempt 2", "model-response audit.response attempt 2",
				"model-response grounding.rejectGuesses attempt 3", "tool-call tools.preflight",
				"model-response grounding.rejectGuesses attempt 4");
	}

	@Test
	void aTurnWithoutRetriesHasNoAttempts() {
		TurnRecorder recorder = new TurnRecorder(10, true, Clock.systemUTC());
		TurnObservationContext turn = TurnRecorderTests.turn(recorder, TURN);
		request(recorder, 1, "guard.redact", "modify");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		hook(recorder, HookPoint.TOOL_CALL, "tools.preflight", "modify", "proceeded");
		request(recorder, 2, "guard.redact", "modify");
		hook(recorder, HookPoint.MODEL_RESPONSE, "grounding.rejectGuesses", "modify", "proceeded");
		TurnRecorderTests.stop(recorder, turn, "completed");

		assertThat(recorder.turn(TURN).orElseThrow().hooks()).extracting(RecordedHook::attempt).containsOnlyNulls();
	}

	private static List<String> labels(RecordedTurn turn) {
		List<String> labels = new ArrayList<>();
		for (RecordedHook hook : turn.hooks()) {
			labels
				.add(String
					.join(" ",
							Arrays.asList(hook.point(), hook.hook(),
									(hook.attempt() != null) ? "attempt " + hook.attempt() : null))
					.replace(" null", ""));
		}
		return labels;
	}

	private static void request(TurnRecorder recorder, int iteration, String name, String lane) {
		invoke(recorder, HookPoint.MODEL_REQUEST, name, lane, "proceeded",
				TestPayloads.modelRequest().iteration(iteration).build());
	}

	private static void hook(TurnRecorder recorder, HookPoint point, String name, String lane, String outcome) {
		invoke(recorder, point, name, lane, outcome, null);
	}

	private static void invoke(TurnRecorder recorder, HookPoint point, String name, String lane, String outcome,
			Object input) {
		HookObservationContext hook = new HookObservationContext(name, point, lane, TURN);
		hook.setInput(input);
		recorder.onStart(hook);
		hook.setOutcome(outcome);
		recorder.onStop(hook);
	}

}
