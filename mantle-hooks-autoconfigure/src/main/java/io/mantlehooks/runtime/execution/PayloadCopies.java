package io.mantlehooks.runtime.execution;

import java.util.Map;

import io.mantlehooks.HookPayload;
import io.mantlehooks.ToolCallPayload;

/**
 * What hooks receive, so that nothing a hook does to its argument reaches the turn or
 * another hook. Payload records are deeply immutable, the messages of a model request
 * included (each is frozen once, when first read, see
 * {@code io.mantlehooks.message.FrozenMessages}): every invocation shares the payload,
 * nothing is copied per hook. The runner names no Spring AI type.
 */
final class PayloadCopies {

	private PayloadCopies() {
	}

	/**
	 * Return the payload one observer receives: the payload itself, without tool-call
	 * metadata, which is meant for the MCP server only.
	 */
	static HookPayload forObserver(HookPayload payload) {
		if (payload instanceof ToolCallPayload call && !call.metadata().isEmpty()) {
			return call.withMetadata(Map.of());
		}
		return payload;
	}

}
