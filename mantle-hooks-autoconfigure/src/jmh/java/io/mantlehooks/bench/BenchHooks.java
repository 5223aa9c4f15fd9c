package io.mantlehooks.bench;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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
import io.mantlehooks.annotation.StreamMode;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Hook beans for benchmarks; each rewrite does the same small job as
 * {@link HandWrittenRewriteAdvisor}.
 */
final class BenchHooks {

	private BenchHooks() {
	}

	static List<Message> redact(List<Message> messages) {
		return messages.stream()
			.<Message>map((message) -> (message instanceof UserMessage user)
					? user.mutate().text(user.getText().replace("4111", "[card]")).build() : message)
			.toList();
	}

	/**
	 * Never returns in time: only its open circuit breaker keeps turns fast.
	 */
	public static class HungRequestHook {

		@ModifyModelRequest
		public ModelRequestPayload hang(ModelRequestPayload request) throws InterruptedException {
			Thread.sleep(60_000);
			return request;
		}

	}

	public static class BlockingRequestHook {

		@ModifyModelRequest
		public ModelRequestPayload redact(ModelRequestPayload request) {
			return request.withMessages(BenchHooks.redact(request.messages()));
		}

	}

	public static class AsyncRequestHook {

		@ModifyModelRequest
		public CompletionStage<ModelRequestPayload> redact(ModelRequestPayload request) {
			return CompletableFuture.completedFuture(request.withMessages(BenchHooks.redact(request.messages())));
		}

	}

	/**
	 * Four modify hooks that return at once: incoming message, model request, model
	 * response and outgoing text, what redaction and house style cost beyond their work.
	 */
	public static class FourTrivialHooks {

		/**
		 * Return the reply the hooks make of the model's text.
		 * @param modelsText what the model answered
		 * @return what the user gets
		 */
		static String hooked(String modelsText) {
			return modelsText.replace("forty-two", "42").replace("word9", "WORD9") + "[ok]";
		}

		@ModifyIncomingMessage
		public IncomingMessagePayload incoming(IncomingMessagePayload message) {
			return message.withText(message.text().replace("hello", "hello"));
		}

		@ModifyModelRequest
		public ModelRequestPayload request(ModelRequestPayload request) {
			return request.withModelSettings(request.modelSettings().withTemperature(0.2));
		}

		@ModifyModelResponse
		public ModelResponsePayload response(ModelResponsePayload response) {
			return (response.text() != null)
					? response.withText(response.text().replace("forty-two", "42").replace("word9", "WORD9")) : response;
		}

		@ModifyOutgoingText
		public OutgoingTextPayload outgoing(OutgoingTextPayload outgoing) {
			return outgoing.withText(outgoing.text() + "[ok]");
		}

	}

	/**
	 * A blocking modify hook that takes 20 ms (a remote guardrail call).
	 */
	public static class SlowRequestHook {

		@ModifyModelRequest
		public ModelRequestPayload check(ModelRequestPayload request) throws InterruptedException {
			Thread.sleep(20);
			return request;
		}

	}

	/**
	 * Sees a streamed reply sentence by sentence and passes each on at once: what a
	 * streaming guardrail costs beyond its own work.
	 */
	public static class SentenceOutgoingHook {

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		public OutgoingTextPayload pass(OutgoingTextPayload payload) {
			return payload;
		}

	}

	/**
	 * Sees the whole reply (the default) and passes it on at once: a streamed turn sends
	 * nothing before the reply is complete.
	 */
	public static class WholeOutgoingHook {

		@ModifyOutgoingText
		public OutgoingTextPayload pass(OutgoingTextPayload payload) {
			return payload;
		}

	}

	/**
	 * A tool-result observer in turns without tools: the starter's whole chain (turn, tool
	 * loop and model-call advisors) with no hook that ever runs, what the chain alone
	 * costs.
	 */
	public static class IdleToolObserver {

		@OnToolResult
		public void result(ToolResultPayload payload) {
		}

	}

	/**
	 * Ten observers, as the goal counts them: turn started and finished, and two
	 * each at the incoming message, the model request and response, and the reply.
	 */
	public static class TenObservers extends Observers {

		@OnIncomingMessage
		public void incomingAgain(IncomingMessagePayload payload) {
		}

		@OnModelRequest
		public void requestAgain(ModelRequestPayload payload) {
		}

		@OnModelResponse
		public void responseAgain(ModelResponsePayload payload) {
		}

		@OnOutgoingText
		public void outgoingAgain(OutgoingTextPayload payload) {
		}

	}

	public static class Observers {

		@OnTurnStarted
		public void started(TurnStartedPayload payload) {
		}

		@OnTurnFinished
		public void finished(TurnFinishedPayload payload) {
		}

		@OnIncomingMessage
		public void incoming(IncomingMessagePayload payload) {
		}

		@OnModelRequest
		public void request(ModelRequestPayload payload) {
		}

		@OnModelResponse
		public void response(ModelResponsePayload payload) {
		}

		@OnOutgoingText
		public void outgoing(OutgoingTextPayload payload) {
		}

	}

	/**
	 * A modify hook and an observer at every point.
	 */
	public static class EveryPoint extends Observers {

		@ModifyIncomingMessage
		public IncomingMessagePayload modifyIncoming(IncomingMessagePayload payload) {
			return payload;
		}

		@ModifyModelRequest
		public ModelRequestPayload modifyRequest(ModelRequestPayload payload) {
			return payload.withMessages(BenchHooks.redact(payload.messages()));
		}

		@ModifyModelResponse
		public ModelResponsePayload modifyResponse(ModelResponsePayload payload) {
			return payload;
		}

		@ModifyToolCall
		public ToolCallPayload modifyToolCall(ToolCallPayload payload) {
			return payload;
		}

		@OnToolCall
		public void toolCall(ToolCallPayload payload) {
		}

		@ModifyToolResult
		public ToolResultPayload modifyToolResult(ToolResultPayload payload) {
			return payload;
		}

		@OnToolResult
		public void toolResult(ToolResultPayload payload) {
		}

		@ModifyKnowledgeQuery
		public KnowledgeQueryPayload modifyQuery(KnowledgeQueryPayload payload) {
			return payload;
		}

		@OnKnowledgeQuery
		public void query(KnowledgeQueryPayload payload) {
		}

		@ModifyKnowledgeResults
		public KnowledgeResultsPayload modifyResults(KnowledgeResultsPayload payload) {
			return payload;
		}

		@OnKnowledgeResults
		public void results(KnowledgeResultsPayload payload) {
		}

		@ModifyOutgoingText
		public OutgoingTextPayload modifyOutgoing(OutgoingTextPayload payload) {
			return payload;
		}

	}

}
