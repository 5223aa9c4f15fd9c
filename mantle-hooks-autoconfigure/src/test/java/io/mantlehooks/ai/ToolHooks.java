package io.mantlehooks.ai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.annotation.OnToolResult;

/**
 * Tool hooks scripted per test; {@link #events} is shared with the test tools so the
 * order of preflight and tool bodies is visible.
 */
class ToolHooks {

	final List<String> events = new CopyOnWriteArrayList<>();

	final List<ToolCallPayload> observedCalls = new CopyOnWriteArrayList<>();

	final List<ToolResultPayload> observedResults = new CopyOnWriteArrayList<>();

	volatile UnaryOperator<ToolCallPayload> call = UnaryOperator.identity();

	volatile UnaryOperator<ToolResultPayload> result = UnaryOperator.identity();

	// far above what a loaded machine needs: a test of its timeout shortens it
	@ModifyToolCall(timeoutMs = 120_000)
	ToolCallPayload preflight(ToolCallPayload payload) {
		this.events.add("preflight:" + payload.toolName());
		return this.call.apply(payload);
	}

	@OnToolCall
	void watchCall(ToolCallPayload payload) {
		this.observedCalls.add(payload);
	}

	@ModifyToolResult
	ToolResultPayload rewriteResult(ToolResultPayload payload) {
		this.events.add("result:" + payload.toolName() + "=" + payload.value() + (payload.isError() ? " (error)" : ""));
		return this.result.apply(payload);
	}

	@OnToolResult
	void watchResult(ToolResultPayload payload) {
		this.observedResults.add(payload);
	}

}
