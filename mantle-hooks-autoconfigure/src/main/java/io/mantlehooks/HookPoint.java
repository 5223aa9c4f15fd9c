package io.mantlehooks;

import java.lang.annotation.Annotation;
import java.util.Set;

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
import org.jspecify.annotations.Nullable;

/**
 * The catalogue of insertion points: per point its payload type, its annotations, whether
 * it has a modify lane, the control signals its modify hook may throw, and the policy
 * applied when that hook crashes, times out or returns something invalid.
 */
public enum HookPoint {

	/** A turn begins. Observe only. */
	TURN_STARTED("turn-started", TurnStartedPayload.class, OnTurnStarted.class, null, FailPolicy.NONE, Set.of()),

	/** A turn ends. Observe only. */
	TURN_FINISHED("turn-finished", TurnFinishedPayload.class, OnTurnFinished.class, null, FailPolicy.NONE, Set.of()),

	/** The user's text, before anything else runs. */
	INCOMING_MESSAGE("incoming-message", IncomingMessagePayload.class, OnIncomingMessage.class,
			ModifyIncomingMessage.class, FailPolicy.CLOSED, Set.of(HookRejection.class)),

	/** Each model call, after the prompt is final and before the provider call. */
	MODEL_REQUEST("model-request", ModelRequestPayload.class, OnModelRequest.class, ModifyModelRequest.class,
			FailPolicy.CLOSED, Set.of()),

	/** Each provider response, before any text is emitted or tool runs. */
	MODEL_RESPONSE("model-response", ModelResponsePayload.class, OnModelResponse.class, ModifyModelResponse.class,
			FailPolicy.OPEN, Set.of(RetryModel.class)),

	/** Each call of a tool-call batch, before any tool of the batch runs. */
	TOOL_CALL("tool-call", ToolCallPayload.class, OnToolCall.class, ModifyToolCall.class, FailPolicy.CLOSED,
			Set.of(RetryModel.class)),

	/** Each tool result, before it is replayed to the model. */
	TOOL_RESULT("tool-result", ToolResultPayload.class, OnToolResult.class, ModifyToolResult.class, FailPolicy.OPEN,
			Set.of()),

	/** Each knowledge search, before it runs. */
	KNOWLEDGE_QUERY("knowledge-query", KnowledgeQueryPayload.class, OnKnowledgeQuery.class, ModifyKnowledgeQuery.class,
			FailPolicy.CLOSED, Set.of()),

	/** Each knowledge search's passages, before they go back to the model. */
	KNOWLEDGE_RESULTS("knowledge-results", KnowledgeResultsPayload.class, OnKnowledgeResults.class,
			ModifyKnowledgeResults.class, FailPolicy.OPEN, Set.of()),

	/** Each completed reply that reaches the user. */
	OUTGOING_TEXT("outgoing-text", OutgoingTextPayload.class, OnOutgoingText.class, ModifyOutgoingText.class,
			FailPolicy.OPEN, Set.of(HookRejection.class));

	private final String configName;

	private final Class<? extends HookPayload> payloadType;

	private final Class<? extends Annotation> observeAnnotation;

	private final @Nullable Class<? extends Annotation> modifyAnnotation;

	private final FailPolicy failPolicy;

	private final Set<Class<? extends HookSignal>> allowedSignals;

	HookPoint(String configName, Class<? extends HookPayload> payloadType,
			Class<? extends Annotation> observeAnnotation, @Nullable Class<? extends Annotation> modifyAnnotation,
			FailPolicy failPolicy, Set<Class<? extends HookSignal>> allowedSignals) {
		this.configName = configName;
		this.payloadType = payloadType;
		this.observeAnnotation = observeAnnotation;
		this.modifyAnnotation = modifyAnnotation;
		this.failPolicy = failPolicy;
		this.allowedSignals = allowedSignals;
	}

	/**
	 * Return the point's name in configuration keys and logs, for example
	 * {@code model-request}.
	 * @return the kebab-case name
	 */
	public String configName() {
		return this.configName;
	}

	/**
	 * Return the payload type that hooks of this point take (and modify hooks return).
	 * @return the payload type
	 */
	public Class<? extends HookPayload> payloadType() {
		return this.payloadType;
	}

	/**
	 * Return the annotation that marks an observe hook of this point.
	 * @return the observe annotation
	 */
	public Class<? extends Annotation> observeAnnotation() {
		return this.observeAnnotation;
	}

	/**
	 * Return the annotation that marks the modify hook of this point.
	 * @return the modify annotation, or {@code null} for observe-only points
	 */
	public @Nullable Class<? extends Annotation> modifyAnnotation() {
		return this.modifyAnnotation;
	}

	/**
	 * Return whether the point has a modify lane.
	 * @return {@code true} unless the point is observe only
	 */
	public boolean hasModifyLane() {
		return this.modifyAnnotation != null;
	}

	/**
	 * Return what happens when the modify hook crashes, times out or returns something
	 * invalid.
	 * @return the fail policy, {@link FailPolicy#NONE} for observe-only points
	 */
	public FailPolicy failPolicy() {
		return this.failPolicy;
	}

	/**
	 * Return the control signals the modify hook of this point may throw.
	 * @return the allowed signal types, possibly empty
	 */
	public Set<Class<? extends HookSignal>> allowedSignals() {
		return this.allowedSignals;
	}

	/**
	 * Return whether the modify hook of this point may throw the given signal.
	 * @param signalType the signal type
	 * @return whether the signal is allowed here
	 */
	public boolean allowsSignal(Class<? extends HookSignal> signalType) {
		return this.allowedSignals.contains(signalType);
	}

	/**
	 * What the turn does when a modify hook crashes, times out or returns something
	 * invalid. Control signals are never subject to the fail policy.
	 */
	public enum FailPolicy {

		/** Log and continue with the last good payload. */
		OPEN,

		/** Stop the action and fail gracefully (a fallback reply, a skipped call). */
		CLOSED,

		/** The point has no modify lane. */
		NONE

	}

}
