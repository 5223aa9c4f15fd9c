package io.mantlehooks.runtime;

import java.util.Map;

import io.mantlehooks.HookPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ToolCallPayload;

/**
 * The copies hooks receive, so that nothing a hook does to its argument reaches the turn
 * or another hook. Payload records are deeply immutable already; the exception is the
 * Spring AI messages of a model request, whose metadata maps are mutable, so every hook
 * invocation gets copies of those ({@link ModelRequestPayload#withCopiedMessages()}: the
 * runner names no Spring AI type).
 */
final class PayloadCopies {

	private PayloadCopies() {
	}

	/**
	 * Return the payload a modify hook receives.
	 */
	static <P extends HookPayload> P forModifier(P payload) {
		if (payload instanceof ModelRequestPayload request && !request.messages().isEmpty()) {
			@SuppressWarnings("unchecked")
			P copy = (P) request.withCopiedMessages();
			return copy;
		}
		return payload;
	}

	/**
	 * Return the payload one observer receives: its own copy, and without tool-call
	 * metadata, which is meant for the MCP server only.
	 */
	static HookPayload forObserver(HookPayload payload) {
		if (payload instanceof ToolCallPayload call && !call.metadata().isEmpty()) {
			return call.withMetadata(Map.of());
		}
		return forModifier(payload);
	}

}
