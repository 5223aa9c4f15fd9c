package io.mantlehooks.runtime.execution;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPayload;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;

/**
 * The payload wall: whatever a modify hook returns, the engine-owned fields (identity,
 * ids, read-only fields such as {@code toolNames} or {@code latencyMs}) are taken from
 * the payload the hook was given. Only the fields documented as mutable survive.
 */
final class IdentityWall {

	private IdentityWall() {
	}

	@SuppressWarnings("unchecked")
	static <P extends HookPayload> P restore(P returned, P original) {
		return (P) restoreAny(returned, original);
	}

	private static HookPayload restoreAny(HookPayload returned, HookPayload original) {
		if (original instanceof IncomingMessagePayload in) {
			return new IncomingMessagePayload(((IncomingMessagePayload) returned).text(), in.messageId(), in.senderId(),
					in.call(), in.channel());
		}
		if (original instanceof ModelRequestPayload in) {
			ModelRequestPayload out = (ModelRequestPayload) returned;
			if (out.toolNames() == in.toolNames() && out.iteration() == in.iteration()
					&& out.senderId() == in.senderId() && out.call() == in.call() && out.channel() == in.channel()) {
				// made by the payload's with-methods: the engine's own fields, untouched
				return out;
			}
			return new ModelRequestPayload(out.messages(), out.modelSettings(), in.toolNames(), in.iteration(),
					in.senderId(), in.call(), in.channel());
		}
		if (original instanceof ModelResponsePayload in) {
			ModelResponsePayload out = (ModelResponsePayload) returned;
			return new ModelResponsePayload(out.text(), restoreCallIdentity(out.toolCalls(), in.toolCalls()),
					in.latencyMs(), in.senderId(), in.call(), in.channel());
		}
		if (original instanceof ToolCallPayload in) {
			ToolCallPayload out = (ToolCallPayload) returned;
			return new ToolCallPayload(out.toolName(), out.arguments(), out.headers(), out.metadata(), in.senderId(),
					in.call(), in.channel(), out.refusal());
		}
		if (original instanceof ToolResultPayload in) {
			ToolResultPayload out = (ToolResultPayload) returned;
			return new ToolResultPayload(in.toolName(), out.arguments(), out.value(), out.isError(), in.senderId(),
					in.call(), in.channel());
		}
		if (original instanceof KnowledgeQueryPayload in) {
			return new KnowledgeQueryPayload(((KnowledgeQueryPayload) returned).query(), in.senderId(), in.call(),
					in.channel());
		}
		if (original instanceof KnowledgeResultsPayload in) {
			return new KnowledgeResultsPayload(in.query(), ((KnowledgeResultsPayload) returned).passages(),
					in.senderId(), in.call(), in.channel());
		}
		if (original instanceof OutgoingTextPayload in) {
			return new OutgoingTextPayload(((OutgoingTextPayload) returned).text(), in.isVoice(), in.senderId(),
					in.call(), in.channel(), in.segment(), in.finalSegment());
		}
		if (original instanceof TurnStartedPayload || original instanceof TurnFinishedPayload) {
			// observe-only points: nothing a hook returns is used
			return original;
		}
		throw new IllegalArgumentException("Unknown payload type " + original.getClass().getName());
	}

	/**
	 * Tool-call ids and types belong to the model: a rewritten call keeps the type of the
	 * model's call with the same id. A call whose id the model never sent keeps its
	 * fields; the tool loop decides what to do with it.
	 */
	private static List<ModelToolCall> restoreCallIdentity(List<ModelToolCall> rewritten,
			List<ModelToolCall> original) {
		if (rewritten.isEmpty() || original.isEmpty()) {
			return rewritten;
		}
		Map<String, ModelToolCall> byId = new HashMap<>();
		original.forEach((call) -> byId.putIfAbsent(call.id(), call));
		return rewritten.stream().map((call) -> {
			ModelToolCall model = byId.get(call.id());
			return (model != null && !model.type().equals(call.type()))
					? new ModelToolCall(model.id(), call.toolName(), call.toolArgs(), model.type()) : call;
		}).toList();
	}

}
