package io.mantlehooks.ai.tool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.execution.HookRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;

/**
 * The calls of one dispatched batch, by position: the MCP metadata the tool-call hooks
 * attached to each, each call's refusal, and each call's result after the tool-result
 * hooks. Spring AI runs a batch's calls one after another in batch order, so the n-th
 * invocation of a tool is its n-th call that runs in the batch (refused calls are not
 * dispatched), and each result passes its hooks as soon as its tool returns.
 */
final class DispatchedBatch {

	private final Turn turn;

	private final HookRunner hooks;

	private final List<AssistantMessage.ToolCall> calls;

	private final List<Map<String, Object>> arguments;

	private final List<Map<String, Object>> metadata;

	private final List<@Nullable String> refusals;

	private final @Nullable ToolResultPayload[] results;

	private final boolean[] threw;

	private final Map<String, ArrayDeque<Integer>> pending = new HashMap<>();

	DispatchedBatch(Turn turn, HookRunner hooks, List<AssistantMessage.ToolCall> calls,
			List<Map<String, Object>> arguments, List<Map<String, Object>> metadata, List<@Nullable String> refusals) {
		this.turn = turn;
		this.hooks = hooks;
		this.calls = calls;
		this.arguments = arguments;
		this.metadata = metadata;
		this.refusals = refusals;
		this.results = new ToolResultPayload[calls.size()];
		this.threw = new boolean[calls.size()];
		for (int i = 0; i < calls.size(); i++) {
			if (refusal(i) == null) {
				this.pending.computeIfAbsent(calls.get(i).name(), (name) -> new ArrayDeque<>()).add(i);
			}
		}
	}

	List<AssistantMessage.ToolCall> calls() {
		return this.calls;
	}

	/**
	 * Return the calls that run: all but the refused ones, in batch order.
	 */
	List<AssistantMessage.ToolCall> toRun() {
		List<AssistantMessage.ToolCall> toRun = new ArrayList<>(this.calls.size());
		for (int i = 0; i < this.calls.size(); i++) {
			if (refusal(i) == null) {
				toRun.add(this.calls.get(i));
			}
		}
		return toRun;
	}

	/**
	 * Return a call's refusal, {@code null} when the call runs.
	 */
	@Nullable String refusal(int index) {
		return (index < this.refusals.size()) ? this.refusals.get(index) : null;
	}

	/**
	 * Return the position of the call a tool is invoked for now, {@code -1} when the
	 * batch holds no further call of it.
	 */
	synchronized int next(String toolName) {
		ArrayDeque<Integer> positions = this.pending.get(toolName);
		Integer index = (positions != null) ? positions.poll() : null;
		return (index != null) ? index : -1;
	}

	/**
	 * Return a call's arguments as parsed once from the JSON text it runs with.
	 */
	Map<String, Object> arguments(int index) {
		return this.arguments.get(index);
	}

	Map<String, Object> metadata(int index) {
		return (index >= 0 && index < this.metadata.size()) ? this.metadata.get(index) : Map.of();
	}

	/**
	 * Run the tool-result hooks on a call's result, right after its tool returned.
	 * @param index the call's position
	 * @param value what the tool returned
	 * @param failed whether the tool failed
	 * @return the value the model sees
	 */
	String completed(int index, String value, boolean failed) {
		if (index < 0) {
			return value;
		}
		AssistantMessage.ToolCall call = this.calls.get(index);
		ToolResultPayload payload = this.turn.toolResult(call.name(), arguments(index), value, failed);
		ToolResultPayload result = payload;
		if (this.hooks.hasHooks(HookPoint.TOOL_RESULT, this.turn.scope())) {
			ModifyResult<ToolResultPayload> hooked = this.hooks.runAndWait(HookPoint.TOOL_RESULT, payload,
					this.turn.scope());
			// fail open: a crash, timeout or ignored signal keeps the original result
			if (hooked instanceof ModifyResult.Proceed<ToolResultPayload> proceed) {
				result = proceed.payload();
			}
		}
		synchronized (this) {
			this.results[index] = result;
		}
		return result.value();
	}

	/**
	 * Note that a call's tool threw a {@code ToolExecutionException}, which Spring AI
	 * turns into the call's result.
	 */
	synchronized void threw(int index) {
		if (index >= 0) {
			this.threw[index] = true;
		}
	}

	synchronized boolean hasThrown(int index) {
		return this.threw[index];
	}

	/**
	 * Return a call's result after its hooks, {@code null} when its tool never ran (a
	 * tool-call limit was reached first).
	 */
	synchronized @Nullable ToolResultPayload result(int index) {
		return this.results[index];
	}

}
