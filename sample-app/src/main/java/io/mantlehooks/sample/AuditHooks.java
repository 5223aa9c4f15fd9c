package io.mantlehooks.sample;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * An audit trail at all ten points. Observers run off the turn's critical path and see
 * the payload as the modify hook left it; they log sizes and names, never the texts
 * (which may hold personal data).
 */
@Component
public class AuditHooks {

	private static final Logger logger = LoggerFactory.getLogger("audit");

	@OnTurnStarted
	public void turnStarted(TurnStartedPayload turn) {
		logger.info("turn {} started for {} on {}", turn.turnId(), turn.senderId(), turn.channel().name());
	}

	@OnIncomingMessage
	public void incoming(IncomingMessagePayload message) {
		logger.info("message of {} characters", message.text().length());
	}

	@OnKnowledgeQuery
	public void searched(KnowledgeQueryPayload query) {
		logger.info("knowledge search of {} characters", query.query().length());
	}

	@OnKnowledgeResults
	public void found(KnowledgeResultsPayload results) {
		logger.info("knowledge search found {}",
				results.passages().stream().map((passage) -> passage.source()).toList());
	}

	@OnModelRequest
	public void modelRequest(ModelRequestPayload request) {
		logger.info("model call {} with {} messages, tools {}", request.iteration(), request.messages().size(),
				request.toolNames());
	}

	@OnModelResponse
	public void modelResponse(ModelResponsePayload response) {
		logger.info("model answered in {} ms with {} tool calls", response.latencyMs(), response.toolCalls().size());
	}

	@OnToolCall
	public void toolCall(ToolCallPayload call) {
		logger.info("tool call {} with arguments {}", call.toolName(), call.arguments().keySet());
	}

	@OnToolResult
	public void toolResult(ToolResultPayload result) {
		logger.info("tool {} returned {} characters{}", result.toolName(), result.value().length(),
				result.isError() ? " (error)" : "");
	}

	@OnOutgoingText
	public void outgoing(OutgoingTextPayload text) {
		logger.info("reply of {} characters", text.text().length());
	}

	@OnTurnFinished
	public void turnFinished(TurnFinishedPayload turn) {
		logger.info("turn {} finished: {}", turn.turnId(), turn.status());
	}

}
