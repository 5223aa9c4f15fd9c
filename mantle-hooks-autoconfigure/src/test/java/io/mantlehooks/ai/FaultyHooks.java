package io.mantlehooks.ai;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyKnowledgeQuery;
import io.mantlehooks.annotation.ModifyKnowledgeResults;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.annotation.OnKnowledgeQuery;
import io.mantlehooks.annotation.OnKnowledgeResults;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.annotation.OnToolResult;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.runtime.HookLane;

/**
 * Hooks at every point and lane that behave until {@link FaultPlan} names them; then they
 * misbehave in the planned way. Asynchronous, so every kind of fault can be expressed.
 */
@SuppressWarnings("unchecked")
public class FaultyHooks {

	static final String SECRET = "SECRET-XYZ";

	private static final Channel OTHER_CHANNEL = Channel.of("other-channel");

	@ModifyIncomingMessage
	public CompletionStage<IncomingMessagePayload> incoming(IncomingMessagePayload payload) {
		return modify(HookPoint.INCOMING_MESSAGE, payload,
				(p) -> new IncomingMessagePayload(p.text(), "other", "other-user", Map.of(), OTHER_CHANNEL),
				(p) -> new IncomingMessagePayload(p.text(), p.messageId(), p.senderId(), deep(), p.channel()));
	}

	@ModifyModelRequest
	public CompletionStage<ModelRequestPayload> request(ModelRequestPayload payload) {
		return modify(HookPoint.MODEL_REQUEST, payload,
				(p) -> new ModelRequestPayload(p.messages(), p.modelSettings(), p.toolNames(), p.iteration(),
						"other-user", Map.of(), OTHER_CHANNEL),
				(p) -> new ModelRequestPayload(p.messages(), p.modelSettings(), p.toolNames(), p.iteration(),
						p.senderId(), deep(), p.channel()));
	}

	@ModifyModelResponse
	public CompletionStage<ModelResponsePayload> response(ModelResponsePayload payload) {
		return modify(HookPoint.MODEL_RESPONSE, payload,
				(p) -> new ModelResponsePayload(p.text(), p.toolCalls(), p.latencyMs(), "other-user", Map.of(),
						OTHER_CHANNEL),
				(p) -> new ModelResponsePayload(p.text(), p.toolCalls(), p.latencyMs(), p.senderId(), deep(),
						p.channel()));
	}

	@ModifyToolCall
	public CompletionStage<ToolCallPayload> toolCall(ToolCallPayload payload) {
		return modify(HookPoint.TOOL_CALL, payload, (p) -> new ToolCallPayload(p.toolName(), p.arguments(), p.headers(),
				p.metadata(), "other-user", Map.of(), OTHER_CHANNEL), (p) -> p.withArguments(deep()));
	}

	@ModifyToolResult
	public CompletionStage<ToolResultPayload> toolResult(ToolResultPayload payload) {
		return modify(HookPoint.TOOL_RESULT, payload, (p) -> new ToolResultPayload(p.toolName(), p.arguments(),
				p.value(), p.isError(), "other-user", Map.of(), OTHER_CHANNEL), (p) -> p.withArguments(deep()));
	}

	@ModifyKnowledgeQuery
	public CompletionStage<KnowledgeQueryPayload> query(KnowledgeQueryPayload payload) {
		return modify(HookPoint.KNOWLEDGE_QUERY, payload,
				(p) -> new KnowledgeQueryPayload(p.query(), "other-user", Map.of(), OTHER_CHANNEL),
				(p) -> new KnowledgeQueryPayload(p.query(), p.senderId(), deep(), p.channel()));
	}

	@ModifyKnowledgeResults
	public CompletionStage<KnowledgeResultsPayload> results(KnowledgeResultsPayload payload) {
		return modify(HookPoint.KNOWLEDGE_RESULTS, payload,
				(p) -> new KnowledgeResultsPayload(p.query(), p.passages(), "other-user", Map.of(), OTHER_CHANNEL),
				(p) -> new KnowledgeResultsPayload(p.query(), p.passages(), p.senderId(), deep(), p.channel()));
	}

	@ModifyOutgoingText
	public CompletionStage<OutgoingTextPayload> outgoing(OutgoingTextPayload payload) {
		return modify(HookPoint.OUTGOING_TEXT, payload,
				(p) -> new OutgoingTextPayload(p.text(), p.isVoice(), "other-user", Map.of(), OTHER_CHANNEL),
				(p) -> new OutgoingTextPayload(p.text(), p.isVoice(), p.senderId(), deep(), p.channel()));
	}

	@OnTurnStarted
	public CompletionStage<Void> turnStarted(TurnStartedPayload payload) {
		return observe(HookPoint.TURN_STARTED);
	}

	@OnTurnFinished
	public CompletionStage<Void> turnFinished(TurnFinishedPayload payload) {
		return observe(HookPoint.TURN_FINISHED);
	}

	@OnIncomingMessage
	public CompletionStage<Void> watchIncoming(IncomingMessagePayload payload) {
		return observe(HookPoint.INCOMING_MESSAGE);
	}

	@OnModelRequest
	public CompletionStage<Void> watchRequest(ModelRequestPayload payload) {
		return observe(HookPoint.MODEL_REQUEST);
	}

	@OnModelResponse
	public CompletionStage<Void> watchResponse(ModelResponsePayload payload) {
		return observe(HookPoint.MODEL_RESPONSE);
	}

	@OnToolCall
	public CompletionStage<Void> watchToolCall(ToolCallPayload payload) {
		return observe(HookPoint.TOOL_CALL);
	}

	@OnToolResult
	public CompletionStage<Void> watchToolResult(ToolResultPayload payload) {
		return observe(HookPoint.TOOL_RESULT);
	}

	@OnKnowledgeQuery
	public CompletionStage<Void> watchQuery(KnowledgeQueryPayload payload) {
		return observe(HookPoint.KNOWLEDGE_QUERY);
	}

	@OnKnowledgeResults
	public CompletionStage<Void> watchResults(KnowledgeResultsPayload payload) {
		return observe(HookPoint.KNOWLEDGE_RESULTS);
	}

	@OnOutgoingText
	public CompletionStage<Void> watchOutgoing(OutgoingTextPayload payload) {
		return observe(HookPoint.OUTGOING_TEXT);
	}

	private static <P extends HookPayload> CompletionStage<P> modify(HookPoint point, P payload,
			Function<P, P> otherTurn, Function<P, P> tooDeep) {
		FaultPlan plan = FaultPlan.of(point, HookLane.MODIFY);
		if (plan == null) {
			return CompletableFuture.completedFuture(payload);
		}
		return switch (plan.fault()) {
			case UNSUPPORTED_SIGNAL -> throw unsupportedSignal(point);
			case OTHER_TURN -> CompletableFuture.completedFuture(otherTurn.apply(payload));
			case TOO_DEEP -> CompletableFuture.completedFuture(tooDeep.apply(payload));
			case WRONG_TYPE -> (CompletionStage<P>) (CompletionStage<?>) CompletableFuture.completedFuture("oops");
			default -> (CompletionStage<P>) misbehave(plan, payload);
		};
	}

	private static CompletionStage<Void> observe(HookPoint point) {
		FaultPlan plan = FaultPlan.of(point, HookLane.OBSERVE);
		if (plan == null) {
			return CompletableFuture.completedFuture(null);
		}
		if (plan.fault() == Fault.UNSUPPORTED_SIGNAL) {
			throw new RetryModel(SECRET);
		}
		return (CompletionStage<Void>) misbehave(plan, null);
	}

	private static CompletionStage<?> misbehave(FaultPlan plan, Object payload) {
		switch (plan.fault()) {
			case CRASH -> throw new IllegalStateException(SECRET);
			case STACK_OVERFLOW -> throw new StackOverflowError(SECRET);
			case OUT_OF_MEMORY -> throw new OutOfMemoryError(SECRET);
			// held until the test releases them: the test proves by order that the
			// turn did not wait for them
			case TIMEOUT, CALLER_INTERRUPTED -> plan.hold().sleep(true);
			case SPIN -> plan.hold().spin();
			case NULL -> {
				return null;
			}
			case NEVER_COMPLETES -> {
				return new CompletableFuture<>();
			}
			case STAGE_FAILS -> {
				return CompletableFuture.failedFuture(new OutOfMemoryError(SECRET));
			}
			default -> throw new IllegalArgumentException(plan.fault().toString());
		}
		return CompletableFuture.completedFuture(payload);
	}

	private static RuntimeException unsupportedSignal(HookPoint point) {
		return point.allowsSignal(RetryModel.class) ? new HookRejection(SECRET, SECRET) : new RetryModel(SECRET);
	}

	/**
	 * A map nested 10,000 deep, built without recursion.
	 */
	static Map<String, Object> deep() {
		Map<String, Object> root = new HashMap<>();
		Map<String, Object> current = root;
		for (int i = 0; i < 10_000; i++) {
			Map<String, Object> next = new HashMap<>();
			current.put("k", next);
			current = next;
		}
		return root;
	}

}
