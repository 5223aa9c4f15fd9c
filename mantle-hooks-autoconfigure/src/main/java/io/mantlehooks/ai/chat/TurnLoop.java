package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.stream.IntStream;

import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ai.approval.ApprovalQuestion;
import io.mantlehooks.ai.approval.StoredBatch;
import io.mantlehooks.ai.approval.ToolApprovals;
import io.mantlehooks.ai.chat.OutgoingTextStage.Reply;
import io.mantlehooks.ai.tool.BatchOutcome;
import io.mantlehooks.ai.tool.ToolBatch;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.execution.HookRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientAttributes;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.UsageAccumulator;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.util.CollectionUtils;

/**
 * The rounds of a turn, written once: after each model call, one decision step says what
 * happens next: send another request (after a tool batch, or again with retry feedback),
 * or finish with a reply, which passes the outgoing-text hooks. It owns the iteration
 * cap, batch preflight and dispatch. The advisor's drivers only make the model calls and,
 * when streaming live, emit what the model streams.
 */
final class TurnLoop {

	private static final Log logger = LogFactory.getLog(TurnLoop.class);

	private final HookRunner hooks;

	private final HookResponses responses;

	private final OutgoingTextStage outgoing;

	private final ToolBatch tools;

	private final int maxIterations;

	private final int maxSegmentLength;

	private final ApprovalQuestion question = new ApprovalQuestion();

	TurnLoop(HookRunner hooks, HookResponses responses, OutgoingTextStage outgoing, ToolBatch tools, int maxIterations,
			int maxSegmentLength) {
		this.hooks = hooks;
		this.responses = responses;
		this.outgoing = outgoing;
		this.tools = tools;
		this.maxIterations = maxIterations;
		this.maxSegmentLength = maxSegmentLength;
	}

	/**
	 * How a streamed turn delivers what the model produces: buffered while a hook may
	 * still change or drop it as a whole (a model-response hook, which may retry; an
	 * outgoing-text hook that sees whole replies; a tool-call hook, whose preflight may
	 * discard the text that accompanies a batch), sentence by sentence through an
	 * outgoing-text hook that opted in, else live. A nested turn's reply reaches no user,
	 * so no outgoing-text hook cuts it.
	 */
	Streaming streaming(Turn turn) {
		if (this.hooks.hasModifier(HookPoint.MODEL_RESPONSE, turn.scope()) || this.outgoing.buffersReplies(turn)) {
			return Streaming.BUFFERED;
		}
		if (this.outgoing.cutsSentences(turn) && !turn.isNested()) {
			return Streaming.SEGMENTED;
		}
		return this.tools.buffersReplies(turn) ? Streaming.BUFFERED : Streaming.LIVE;
	}

	/**
	 * Whether preflight may discard a streamed round's text with its tool batch (the
	 * specification): the round's sentences go out as they come, and are taken back when
	 * a tool-call hook retries, closes or pauses the batch.
	 */
	boolean mayDiscardRoundText(State state) {
		return state.segments() != null && state.offersTools() && this.tools.buffersReplies(state.turn());
	}

	/**
	 * Return the reply a streamed turn cuts into sentences, for a turn that does.
	 */
	@Nullable SegmentedReply segments(State state, Executor executor) {
		if (state.streaming() != Streaming.SEGMENTED) {
			return null;
		}
		return new SegmentedReply(this.outgoing, state.turn(), state.request(), executor,
				SegmentedReply.currentLocale(), this.maxSegmentLength);
	}

	/**
	 * Let the outgoing-text observers see a reply whose segment was rejected: the reply
	 * the user finally has.
	 */
	void retracted(State state, Reply rejection) {
		state.outcome(rejection.outcome());
		state.replaceStreamed(rejection.text());
		observeStreamed(state);
	}

	/**
	 * Decide what follows a round's response.
	 */
	Step<Decision> next(State state, Round round, ChatClientResponse response) {
		RoundReport report = RoundReport.of(response);
		if (report != null && report.kind() == RoundReport.Kind.REQUEST_FAILED) {
			state.outcome(Outcome.hookError(report.detail()));
			return finish(state, response, true);
		}
		if (report != null) {
			return send(state, round.retry(report.detail()));
		}
		if (!state.runsTools() || !ChatResponses.hasToolCalls(response.chatResponse())) {
			return finish(state, response, true);
		}
		ToolCallingChatOptions options = (ToolCallingChatOptions) state.request().prompt().getOptions();
		return this.tools
			.run(state.turn(), state.toolCallingManager(), round.history(), options, response.chatResponse(),
					this.hooks.hasModifier(HookPoint.MODEL_RESPONSE, state.turn().scope()))
			.then((batch) -> afterBatch(state, round, response, batch));
	}

	private Step<Decision> afterBatch(State state, Round round, ChatClientResponse response, BatchOutcome batch) {
		if (batch instanceof BatchOutcome.Next next) {
			return send(state, round.after(next.history()));
		}
		if (batch instanceof BatchOutcome.Retry retry) {
			// the batch and its text are discarded; the same prompt goes out again
			return send(state, round.retry(retry.feedback()));
		}
		if (batch instanceof BatchOutcome.Direct direct) {
			return finish(state,
					ChatResponses.withGenerations(response, ToolExecutionResult.buildGenerations(direct.result())),
					false);
		}
		if (batch instanceof BatchOutcome.Limit limit) {
			List<Generation> generations = List.of(limit.generation());
			return finish(state, ChatResponses.withGenerations(response, generations), false);
		}
		if (batch instanceof BatchOutcome.AwaitingApproval awaiting) {
			StoredBatch stored = new StoredBatch(awaiting.history(), awaiting.output(), awaiting.metadata(),
					round.iteration(), awaiting.refusals());
			// a refused call does not run if the batch is approved: the question does
			// not list it
			List<AssistantMessage.ToolCall> toolCalls = awaiting.output().getToolCalls();
			List<ApprovalCall> calls = IntStream.range(0, toolCalls.size())
				.filter((i) -> stored.refusal(i) == null)
				.mapToObj((i) -> new ApprovalCall(toolCalls.get(i).name(), toolCalls.get(i).arguments()))
				.toList();
			return Step.blocking(() -> pause(state, stored), (id) -> ask(state, id, awaiting.call(), calls));
		}
		BatchOutcome.Closed closed = (BatchOutcome.Closed) batch;
		state.outcome(Outcome.hookError(closed.reason()));
		return finish(state, engineReply(state, HookResponses.TOOL_CALL_HOOK_ERROR), false);
	}

	/**
	 * Resume a turn with a batch a person approved or declined: run it exactly as stored
	 * (or tell the model it was declined), then go on as after any batch.
	 */
	Step<Decision> resume(State state, Resume resume) {
		StoredBatch batch = resume.batch();
		Round round = new Round(batch.iteration(), batch.history(), null);
		ChatClientResponse response = new ChatClientResponse(new ChatResponse(List.of(new Generation(batch.output()))),
				state.request().context());
		if (!resume.approved()) {
			return afterBatch(state, round, response, this.tools.declined(batch, resume.reason()));
		}
		if (!(state.request().prompt().getOptions() instanceof ToolCallingChatOptions options)) {
			return afterBatch(state, round, response,
					new BatchOutcome.Closed("the request that approved the batch offers no tools"));
		}
		return this.tools.resume(state.turn(), state.toolCallingManager(), batch, options)
			.then((outcome) -> afterBatch(state, round, response, outcome));
	}

	private @Nullable String pause(State state, StoredBatch batch) {
		ToolApprovals approvals = this.tools.approvals();
		try {
			return (approvals != null) ? approvals.pause(state.turn(), batch) : null;
		}
		catch (RuntimeException | Error ex) {
			state.turn()
				.scope()
				.run(() -> logger.warn("Could not store a tool-call batch for approval; nothing in it runs", ex));
			return null;
		}
	}

	/**
	 * End the turn with the approval question. When an outgoing-text hook rejects the
	 * question, the user never got it: the paused batch is dropped and the rejection's
	 * reply goes out instead.
	 */
	private Step<Decision> ask(State state, @Nullable String approvalId, ToolCallPayload call,
			List<ApprovalCall> calls) {
		if (approvalId == null) {
			state.outcome(Outcome.hookError("the batch could not be stored for approval"));
			return finish(state, engineReply(state, HookResponses.TOOL_CALL_HOOK_ERROR), false);
		}
		String question = this.question.of(this.responses.resolve(null, HookResponses.TOOL_APPROVAL_REQUIRED), call,
				calls);
		SegmentedReply segments = state.segments();
		Step<Reply> asking = (segments != null) ? segments.engineReply(question)
				: this.outgoing.process(state.turn(), question);
		return asking.then((reply) -> {
			if (reply.outcome() != null) {
				state.outcome(reply.outcome());
				return Step.blocking(() -> forget(state, approvalId), (ignored) -> Step.done(asked(state, reply)));
			}
			if (hidesCalls(question, reply.text(), calls)) {
				// what the user approves is what runs: a question that no longer names
				// every call (a redaction or a cut) must not be approvable
				state.turn()
					.scope()
					.run(() -> logger.warn("An outgoing-text hook changed the approval question of batch '" + approvalId
							+ "' so that it no longer names every call that would run; the batch is dropped and "
							+ "nothing runs"));
				state.outcome(Outcome.hookError("an outgoing-text hook hid calls of the approval question"));
				return Step.blocking(() -> forget(state, approvalId),
						(ignored) -> finish(state, engineReply(state, HookResponses.TOOL_CALL_HOOK_ERROR), false));
			}
			state.outcome(new Outcome(Outcome.AWAITING_APPROVAL,
					"a call of tool '" + call.toolName() + "' waits for approval"));
			state.approval(approvalId, calls);
			return Step.done(asked(state, reply));
		});
	}

	/**
	 * Whether the outgoing-text hooks changed a question that named every call (tool and
	 * arguments) into one that does not.
	 */
	private static boolean hidesCalls(String question, @Nullable String shown, List<ApprovalCall> calls) {
		return !question.equals(shown) && namesEvery(question, calls) && !namesEvery(shown, calls);
	}

	private static boolean namesEvery(@Nullable String text, List<ApprovalCall> calls) {
		return text != null
				&& calls.stream().allMatch((call) -> text.contains(call.toolName()) && text.contains(call.arguments()));
	}

	private Decision asked(State state, Reply reply) {
		ChatClientResponse response = ChatResponses.textResponse(state.request(),
				(reply.text() != null) ? reply.text() : "");
		SegmentedReply segments = state.segments();
		if (segments != null) {
			// the question ends a reply streamed sentence by sentence
			if (reply.outcome() != null) {
				retracted(state, reply);
				return new Decision(null, state.complete(segments.retraction(response, reply)), true);
			}
			state.streamed(reply.text());
			observeStreamed(state);
		}
		if (reply.text() == null) {
			response = ChatResponses.withoutGenerations(response);
		}
		return new Decision(null, state.complete(response), true);
	}

	private Boolean forget(State state, String approvalId) {
		ToolApprovals approvals = this.tools.approvals();
		try {
			if (approvals != null) {
				approvals.forget(approvalId);
			}
		}
		catch (RuntimeException | Error ex) {
			state.turn()
				.scope()
				.run(() -> logger.warn("Could not drop the batch '" + approvalId
						+ "' whose approval question was rejected; it expires unapproved", ex));
		}
		return Boolean.TRUE;
	}

	private Step<Decision> send(State state, Round next) {
		if (next.iteration() > this.maxIterations) {
			logger.warn("Turn " + state.turn().id() + " reached mantle.hooks.max-iterations (" + this.maxIterations
					+ " model calls); replying " + HookResponses.MAX_ITERATIONS_REACHED);
			state.outcome(new Outcome(Outcome.MAX_ITERATIONS,
					"reached " + this.maxIterations + " model calls (mantle.hooks.max-iterations)"));
			return finish(state, engineReply(state, HookResponses.MAX_ITERATIONS_REACHED), false);
		}
		return Step.done(new Decision(next, null, false));
	}

	private ChatClientResponse engineReply(State state, String name) {
		return ChatResponses.textResponse(state.request(), this.responses.resolve(null, name));
	}

	/**
	 * Finish with a reply. In a live stream the model's own reply has already been
	 * streamed: observers see the completed text; any other reply still goes out.
	 */
	private Step<Decision> finish(State state, ChatClientResponse response, boolean fromModel) {
		String text = (response.chatResponse() == null || ChatResponses.hasToolCalls(response.chatResponse())) ? null
				: ChatResponses.text(response.chatResponse());
		if (state.live()) {
			SegmentedReply segments = state.segments();
			if (text != null && !fromModel && segments != null) {
				// the engine's own reply passes the hook as the reply's final segment
				return segments.engineReply(text).map((reply) -> {
					if (reply.outcome() != null) {
						retracted(state, reply);
						return new Decision(null, state.complete(segments.retraction(response, reply)), true);
					}
					String shown = (reply.text() != null) ? reply.text() : text;
					state.streamed(shown);
					observeStreamed(state);
					return new Decision(null, state.complete(ChatResponses.withText(response, shown)), true);
				});
			}
			if (text != null && !fromModel) {
				state.streamed(text);
			}
			observeStreamed(state);
			return Step.done(new Decision(null, state.complete(response), !fromModel));
		}
		if (text == null || state.turn().isNested()) {
			// tool calls for the application to run, or a nested call's reply that no
			// user receives
			return Step.done(new Decision(null, state.complete(response), true));
		}
		return this.outgoing.process(state.turn(), text)
			.map((reply) -> new Decision(null, state.complete(replied(state, response, text, reply)), true));
	}

	private void observeStreamed(State state) {
		if (!state.turn().isNested() && this.outgoing.observesStreamed(state.turn()) && state.streamedText() != null) {
			this.outgoing.observeStreamed(state.turn(), state.streamedText());
		}
	}

	private static ChatClientResponse replied(State state, ChatClientResponse response, String text, Reply reply) {
		if (reply.outcome() != null) {
			state.outcome(reply.outcome());
		}
		if (reply.text() == null) {
			return ChatResponses.withoutGenerations(response);
		}
		return reply.text().equals(text) ? response : ChatResponses.withText(response, reply.text());
	}

	/**
	 * How a streamed turn delivers the model's reply.
	 */
	enum Streaming {

		/** As the model streams it. */
		LIVE,

		/** Sentence by sentence, each through the outgoing-text hook. */
		SEGMENTED,

		/** Once the turn's reply is final. */
		BUFFERED

	}

	/**
	 * What follows a round: another round, or the final response.
	 *
	 * @param next the next round, else {@code null}
	 * @param response the final response, else {@code null}
	 * @param emit whether the final response still has to reach the caller (a live stream
	 * has already delivered the model's own reply)
	 */
	record Decision(@Nullable Round next, @Nullable ChatClientResponse response, boolean emit) {
	}

	/**
	 * One turn's loop: the turn, its request, whether the stream is live, the outcome so
	 * far and, for outgoing-text observers of a live stream, the text streamed so far.
	 * Local to one invocation of the loop advisor; never shared.
	 */
	static final class State {

		private final Turn turn;

		private final ChatClientRequest request;

		private final Streaming streaming;

		private final boolean runsTools;

		private final boolean offersTools;

		private final ToolCallingManager toolCallingManager;

		private @Nullable SegmentedReply segments;

		private @Nullable Outcome outcome;

		private @Nullable String approvalId;

		private List<ApprovalCall> approvalCalls = List.of();

		private @Nullable StringBuilder streamed;

		/** The responses of the rounds so far, whose token usage the turn reports. */
		private final List<ChatResponse> rounds = new ArrayList<>();

		State(Turn turn, ChatClientRequest request, Streaming streaming, ToolCallingManager toolCallingManager) {
			this.turn = turn;
			this.request = request;
			this.streaming = streaming;
			this.toolCallingManager = toolCallingManager;
			this.runsTools = runsTools(request);
			this.offersTools = this.runsTools && offersTools(request);
			this.streamed = (streaming != Streaming.BUFFERED) ? new StringBuilder() : null;
		}

		/**
		 * Tools run when the options carry tool callbacks, unless the app turned Spring
		 * AI's tool calling off for this request.
		 */
		private static boolean runsTools(ChatClientRequest request) {
			return request.prompt().getOptions() instanceof ToolCallingChatOptions && !Boolean.FALSE
				.equals(request.context().get(ChatClientAttributes.TOOL_CALLING_ADVISOR_AUTO_REGISTER.getKey()));
		}

		/**
		 * Whether the request offers the model any tool: options that support tool
		 * calling (a provider's always do) with no tool callback in them offer none.
		 */
		private static boolean offersTools(ChatClientRequest request) {
			ToolCallingChatOptions options = (ToolCallingChatOptions) request.prompt().getOptions();
			return !CollectionUtils.isEmpty(options.getToolCallbacks());
		}

		Turn turn() {
			return this.turn;
		}

		/**
		 * Return what executes the turn's tool calls: the application's tool advisor's
		 * manager when the loop took one over.
		 */
		ToolCallingManager toolCallingManager() {
			return this.toolCallingManager;
		}

		ChatClientRequest request() {
			return this.request;
		}

		/**
		 * Whether the model's reply reaches the caller as it streams (as it comes, or
		 * sentence by sentence), rather than as the turn's final response.
		 */
		boolean live() {
			return this.streaming != Streaming.BUFFERED;
		}

		Streaming streaming() {
			return this.streaming;
		}

		@Nullable SegmentedReply segments() {
			return this.segments;
		}

		void segments(@Nullable SegmentedReply reply) {
			this.segments = reply;
		}

		boolean runsTools() {
			return this.runsTools;
		}

		/**
		 * Whether the turn's tools run and the request offers the model at least one.
		 */
		boolean offersTools() {
			return this.offersTools;
		}

		synchronized void outcome(Outcome next) {
			this.outcome = Outcome.first(this.outcome, next);
		}

		synchronized void approval(String id, List<ApprovalCall> calls) {
			this.approvalId = id;
			this.approvalCalls = calls;
		}

		synchronized void streamed(@Nullable String text) {
			if (this.streamed != null && text != null) {
				this.streamed.append(text);
			}
		}

		/**
		 * A retraction replaced everything streamed so far.
		 */
		synchronized void replaceStreamed(@Nullable String text) {
			if (this.streamed != null) {
				this.streamed.setLength(0);
				if (text != null) {
					this.streamed.append(text);
				}
			}
		}

		/**
		 * Count a round's token usage toward the turn.
		 */
		synchronized void roundDone(@Nullable ChatResponse response) {
			if (response != null) {
				this.rounds.add(response);
			}
		}

		/**
		 * Return the final response with the usage of every round, as Spring AI's tool
		 * advisor reports it.
		 */
		synchronized ChatClientResponse withTurnUsage(ChatClientResponse response) {
			return withUsage(response, null);
		}

		/**
		 * Return a chunk streamed live with the earlier rounds' usage added to its own,
		 * when it carries usage.
		 */
		synchronized ChatClientResponse withTurnUsageSoFar(ChatClientResponse chunk) {
			ChatResponse chatResponse = chunk.chatResponse();
			if (chatResponse == null || chatResponse.getMetadata().getUsage() == null
					|| chatResponse.getMetadata().getUsage().getTotalTokens() == null
					|| chatResponse.getMetadata().getUsage().getTotalTokens() == 0) {
				return chunk;
			}
			return withUsage(chunk, chatResponse);
		}

		private ChatClientResponse withUsage(ChatClientResponse response, @Nullable ChatResponse own) {
			if (this.rounds.isEmpty() || response.chatResponse() == null) {
				return response;
			}
			UsageAccumulator usage = new UsageAccumulator();
			this.rounds.forEach(usage::addRoundResponse);
			if (own != null) {
				usage.addRoundResponse(own);
			}
			return usage.applyAccumulatedUsage(response);
		}

		synchronized @Nullable String streamedText() {
			return (this.streamed != null) ? this.streamed.toString() : null;
		}

		/**
		 * Return the final response with the turn's outcome in its context.
		 */
		synchronized ChatClientResponse complete(ChatClientResponse response) {
			ChatClientResponse completed = TurnContexts.withOutcome(response, this.outcome);
			if (this.approvalId == null) {
				return completed;
			}
			Map<String, @Nullable Object> context = new HashMap<>(completed.context());
			context.put(MantleHooks.APPROVAL_ID, this.approvalId);
			context.put(MantleHooks.APPROVAL_CALLS, this.approvalCalls);
			return new ChatClientResponse(completed.chatResponse(), context);
		}

	}

}
