package io.mantlehooks.console;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Labels the attempts of a retried model call. A model-response or tool-call modify hook
 * that throws {@code RetryModel} discards the model's response and the engine calls the
 * model again, as the turn's next model call (the model-request payload's
 * {@code iteration} + 1): the calls from the first to the one that was not retried are
 * the attempts of one model call, and their model-request and model-response rows read
 * "attempt 1", "attempt 2", ... Rows of a call that was neither retried nor a retry are
 * not labelled.
 * <p>
 * The recorder has no attempt number: a model-request row knows its model call from its
 * payload's {@code iteration}, a model-response payload carries none. So rows are
 * attributed to model calls by their order in the turn: a row belongs to the model call
 * of the latest model-request row started before it, except a model-request row of a call
 * already seen (an observer that waited in the queue while the turn went on), which
 * belongs to the call its payload names. A model-request or model-response row whose call
 * is not known (no model-request hooks; a hook that was not called has no payload) starts
 * a new model call when its hook already has a row at that point in the current call, or
 * when the current call already had a row of a later point.
 */
final class ModelCallAttempts {

	private static final String MODEL_REQUEST = "model-request";

	private static final String MODEL_RESPONSE = "model-response";

	/** The points of one model call, in the order they run. */
	private static final List<String> STAGES = List.of(MODEL_REQUEST, MODEL_RESPONSE, "tool-call", "tool-result");

	private static final String RETRIED = "retried";

	private ModelCallAttempts() {
	}

	/**
	 * Label the rows of a turn.
	 * @param rows the turn's rows in start order
	 * @return the rows, in the same order, those of retried model calls labelled
	 */
	static List<RecordedHook> label(List<Row> rows) {
		List<Integer> callOfRow = new ArrayList<>(rows.size());
		List<Boolean> retried = new ArrayList<>();
		Map<Integer, Call> byIteration = new HashMap<>();
		Call current = null;
		for (Row row : rows) {
			String point = row.hook().point();
			int stage = STAGES.indexOf(point);
			if (stage < 0) {
				callOfRow.add(-1);
				continue;
			}
			Call known = (stage == 0) ? byIteration.get(row.iteration()) : null;
			if (known != null && known != current) {
				// an observer of an earlier call that started late (observers wait in a
				// queue under load): its payload names its call, and the current call
				// stays the one the next rows belong to
				known.add(row, stage);
				callOfRow.add(known.index);
				if (RETRIED.equals(row.hook().outcome())) {
					retried.set(known.index, true);
				}
				continue;
			}
			if (stage <= 1 && (current == null || current.startedBy(row, stage))) {
				current = new Call(retried.size(), row.iteration());
				retried.add(false);
			}
			if (current == null) {
				// a tool row before any model call: a call without model hooks
				callOfRow.add(-1);
				continue;
			}
			current.add(row, stage);
			if (current.iteration > 0) {
				byIteration.putIfAbsent(current.iteration, current);
			}
			callOfRow.add(current.index);
			if (RETRIED.equals(row.hook().outcome())) {
				retried.set(current.index, true);
			}
		}
		int[] attempts = attempts(retried);
		List<RecordedHook> labelled = new ArrayList<>(rows.size());
		for (int i = 0; i < rows.size(); i++) {
			RecordedHook hook = rows.get(i).hook();
			int call = callOfRow.get(i);
			boolean modelRow = MODEL_REQUEST.equals(hook.point()) || MODEL_RESPONSE.equals(hook.point());
			boolean attempt = call >= 0 && modelRow && (attempts[call] > 1 || retried.get(call));
			labelled.add(attempt ? hook.withAttempt(attempts[call]) : hook);
		}
		return labelled;
	}

	/** Each call's attempt: the one after a retried call is its next attempt. */
	private static int[] attempts(List<Boolean> retried) {
		int[] attempts = new int[retried.size()];
		for (int i = 0; i < attempts.length; i++) {
			attempts[i] = (i > 0 && retried.get(i - 1)) ? attempts[i - 1] + 1 : 1;
		}
		return attempts;
	}

	/**
	 * A row of a turn with what the recorder knows of its model call.
	 *
	 * @param hook the row
	 * @param iteration the model call's number in the turn for a model-request row (its
	 * payload's {@code iteration}), {@code 0} when not known
	 */
	record Row(RecordedHook hook, int iteration) {

	}

	/**
	 * The model call rows are being attributed to.
	 */
	private static final class Call {

		private final int index;

		private int iteration;

		private int latestStage;

		private final Set<String> hooksAt = new HashSet<>();

		Call(int index, int iteration) {
			this.index = index;
			this.iteration = iteration;
		}

		/**
		 * Whether a model-request or model-response row starts the next model call.
		 */
		boolean startedBy(Row row, int stage) {
			if (row.iteration() > 0 && this.iteration > 0) {
				return row.iteration() != this.iteration;
			}
			return this.latestStage > stage || this.hooksAt.contains(key(row));
		}

		void add(Row row, int stage) {
			this.latestStage = Math.max(this.latestStage, stage);
			this.hooksAt.add(key(row));
			if (this.iteration == 0 && row.iteration() > 0) {
				this.iteration = row.iteration();
			}
		}

		private static String key(Row row) {
			return row.hook().point() + " " + row.hook().hook();
		}

	}

}
