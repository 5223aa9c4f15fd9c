package io.mantlehooks.ai.tool;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.PayloadTooDeepException;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.ai.approval.StoredBatch;
import io.mantlehooks.ai.approval.ToolApprovals;
import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.ToolArguments;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.execution.HookRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.util.Assert;

/**
 * One tool-call batch of a model response, as {@link Step}s: the preflight (tool-call
 * hooks once per call, in batch order, before any tool runs), the dispatch of the whole
 * batch through Spring AI's {@link ToolCallingManager} (tool-call limits, exception
 * processing and {@code returnDirect} as Spring AI does them), and the tool-result hooks
 * on each result before it is replayed to the model. A call a tool-call hook refused
 * ({@link ToolCallPayload#withRefusal(String)}) is not dispatched and asks for no
 * approval: its result is the refusal, an error result the tool-result hooks see like a
 * failed tool's, in the call's place. Every part is linear in the size of the batch. With
 * no tool hooks, the batch is dispatched untouched.
 */
public final class ToolBatch {

	/** ToolResponseMessage metadata: the ids of the results that count as errors. */
	public static final String ERROR_IDS = "mantle.tool_error_ids";

	/** The arguments a refused call whose own could not be read is replayed with. */
	private static final String NO_ARGUMENTS = "{}";

	/**
	 * What the model reads, as that call's error result, for a call whose arguments are
	 * not one JSON object: hooks and the approval policy saw no arguments for it, so the
	 * tool must not receive that text either.
	 */
	static final String UNREADABLE_ARGUMENTS = "The tool was not called: its arguments were not one JSON object. "
			+ "Call it again with its parameters as one JSON object.";

	private final HookRunner hooks;

	private final @Nullable ToolApprovals approvals;

	/**
	 * Create the batch stage.
	 * @param hooks the hook runner
	 */
	public ToolBatch(HookRunner hooks) {
		this(hooks, null);
	}

	/**
	 * Create the batch stage with approvals: a batch with a call that needs approval
	 * pauses after preflight, before any tool runs.
	 * @param hooks the hook runner
	 * @param approvals which calls need approval, {@code null} for none
	 */
	public ToolBatch(HookRunner hooks, @Nullable ToolApprovals approvals) {
		this.hooks = hooks;
		this.approvals = approvals;
	}

	/**
	 * Return the approvals, if any call may need one.
	 * @return the approvals, {@code null} without
	 */
	public @Nullable ToolApprovals approvals() {
		return this.approvals;
	}

	/**
	 * Return whether a tool-call hook may still discard a batch, so the text that comes
	 * with it must not be streamed before preflight.
	 * @param turn the turn
	 * @return whether the turn's agent has a tool-call modify hook
	 */
	public boolean buffersReplies(Turn turn) {
		return this.hooks.hasModifier(HookPoint.TOOL_CALL, turn.scope());
	}

	/**
	 * Run the batch of a model response.
	 * @param turn the turn
	 * @param manager what executes the tool calls
	 * @param history the turn's history before the response
	 * @param options the request's options, with the offered tools
	 * @param response the model response with tool calls
	 * @param renamesPossible whether a hook before this stage could have renamed calls (a
	 * model-response modify hook), so a call of a tool that was not offered fails closed
	 * instead of reaching Spring AI
	 * @return the step whose result tells the loop what to do next
	 */
	public Step<BatchOutcome> run(Turn turn, ToolCallingManager manager, List<Message> history,
			ToolCallingChatOptions options, ChatResponse response, boolean renamesPossible) {
		Generation generation = response.getResults()
			.stream()
			.filter((candidate) -> candidate.getOutput().hasToolCalls())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No tool call requested by the chat model"));
		AssistantMessage output = generation.getOutput();
		List<AssistantMessage.ToolCall> calls = output.getToolCalls();
		boolean toolCallHooks = this.hooks.hasHooks(HookPoint.TOOL_CALL, turn.scope());
		boolean toolResultHooks = this.hooks.hasHooks(HookPoint.TOOL_RESULT, turn.scope());
		Set<String> offered = offeredTools(options);
		if (renamesPossible || toolCallHooks) {
			for (AssistantMessage.ToolCall call : calls) {
				if (!offered.contains(call.name())) {
					return Step.done(new BatchOutcome.Closed(
							"a hook chose tool '" + call.name() + "', which the model was not offered"));
				}
			}
		}
		// model-response hooks saw the calls' arguments too: a call whose arguments they
		// could not read must not run on them unseen
		if (!toolCallHooks && !toolResultHooks && this.approvals == null
				&& !this.hooks.hasHooks(HookPoint.MODEL_RESPONSE, turn.scope())) {
			return Step.blocking(() -> dispatchUntouched(turn, manager, history, options, response), Step::done);
		}
		Preflight preflight = new Preflight(calls.size());
		if (toolCallHooks) {
			String duplicate = duplicateId(calls);
			if (duplicate != null) {
				return Step.done(new BatchOutcome.Closed("duplicate tool-call id '" + duplicate + "' in one batch"));
			}
			PreflightCalls sequence = new PreflightCalls(turn, calls, offered, preflight);
			return Step.await(this.hooks.runEach(HookPoint.TOOL_CALL, sequence, turn.scope()),
					(ended) -> (sequence.stopped != null) ? Step.done(sequence.stopped)
							: gateThenDispatch(turn, manager, history, options, response, output, preflight));
		}
		for (AssistantMessage.ToolCall call : calls) {
			Map<String, Object> arguments = ToolArguments.parseObject(call.arguments());
			ToolCallPayload payload = payloadOf(turn, call, arguments);
			if (payload == null) {
				return Step.done(tooDeep(call));
			}
			if (arguments == null) {
				preflight.accept(withoutArguments(call), payload.arguments(), Map.of(), payload, UNREADABLE_ARGUMENTS);
			}
			else {
				preflight.accept(call, payload.arguments(), Map.of(), payload, null);
			}
		}
		return gateThenDispatch(turn, manager, history, options, response, output, preflight);
	}

	/**
	 * The call with no arguments: how a call whose arguments could not be read is
	 * replayed to the model, since an adapter that parses the arguments (Anthropic's)
	 * could fail on the model's text.
	 */
	private static AssistantMessage.ToolCall withoutArguments(AssistantMessage.ToolCall call) {
		return new AssistantMessage.ToolCall(call.id(), call.type(), call.name(), NO_ARGUMENTS);
	}

	/**
	 * After preflight, on the calls as the hooks left them: pause the batch when a call
	 * needs approval, else run it.
	 */
	private Step<BatchOutcome> gateThenDispatch(Turn turn, ToolCallingManager manager, List<Message> history,
			ToolCallingChatOptions options, ChatResponse response, AssistantMessage output, Preflight preflight) {
		ToolCallPayload awaiting = (this.approvals != null) ? this.approvals.firstRequiringApproval(preflight.toRun())
				: null;
		if (awaiting != null) {
			return Step
				.done(new BatchOutcome.AwaitingApproval(history, output.mutate().toolCalls(preflight.asShown()).build(),
						preflight.metadata, awaiting, preflight.refusals));
		}
		if (!this.hooks.hasHooks(HookPoint.TOOL_CALL, turn.scope())
				&& !this.hooks.hasHooks(HookPoint.TOOL_RESULT, turn.scope()) && !preflight.refusesAny()) {
			return Step.blocking(() -> dispatchUntouched(turn, manager, history, options, response), Step::done);
		}
		return dispatch(turn, manager, history, options, output, preflight);
	}

	/**
	 * Run an approved batch exactly as it was stored: no tool-call hooks again, each
	 * call's MCP metadata replayed, tool-result hooks on each result.
	 * @param turn the turn that approved it
	 * @param manager what executes the tool calls
	 * @param batch the stored batch
	 * @param options the approving request's options, with the tools
	 * @return the step whose result tells the loop what to do next
	 */
	public Step<BatchOutcome> resume(Turn turn, ToolCallingManager manager, StoredBatch batch,
			ToolCallingChatOptions options) {
		Set<String> offered = offeredTools(options);
		List<AssistantMessage.ToolCall> calls = batch.output().getToolCalls();
		Preflight preflight = new Preflight(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			AssistantMessage.ToolCall call = calls.get(i);
			if (!offered.contains(call.name())) {
				return Step.done(new BatchOutcome.Closed("tool '" + call.name()
						+ "' of the approved batch is not offered to the request that approved it"));
			}
			preflight.accept(call, ToolArguments.parse(call.arguments()),
					(i < batch.metadata().size()) ? batch.metadata().get(i) : Map.of(), null, batch.refusal(i));
		}
		return dispatch(turn, manager, batch.history(), options, batch.output(), preflight);
	}

	/**
	 * Return what follows a declined batch: no tool ran; each call's result tells the
	 * model the user declined ({@link ToolApprovals#declined}).
	 * @param batch the stored batch
	 * @param reason why the user declined
	 * @return the history for the next model call
	 */
	public BatchOutcome declined(StoredBatch batch, String reason) {
		ToolApprovals approvals = this.approvals;
		Assert.state(approvals != null, "A batch was declined but approvals are not configured");
		return new BatchOutcome.Next(approvals.declined(batch, reason));
	}

	/**
	 * The model's call as a payload, with no arguments when they were not one JSON object
	 * ({@code null}); or {@code null} when its arguments nest deeper than payloads
	 * accept: then no hook, policy or tool can judge it, and nothing in the batch runs.
	 */
	private static @Nullable ToolCallPayload payloadOf(Turn turn, AssistantMessage.ToolCall call,
			@Nullable Map<String, Object> arguments) {
		try {
			return turn.toolCall(call.name(), (arguments != null) ? arguments : Map.of());
		}
		catch (PayloadTooDeepException ex) {
			return null;
		}
	}

	private static BatchOutcome.Closed tooDeep(AssistantMessage.ToolCall call) {
		return new BatchOutcome.Closed(
				"the model's arguments for tool '" + call.name() + "' nest deeper than hook payloads accept");
	}

	private @Nullable BatchOutcome dispatchUntouched(Turn turn, ToolCallingManager manager, List<Message> history,
			ToolCallingChatOptions options, ChatResponse response) {
		try (CurrentTurn.Scope scope = CurrentTurn.open(turn)) {
			ToolExecutionResult result = manager.executeToolCalls(new Prompt(history, options), response);
			return result.returnDirect() ? new BatchOutcome.Direct(result)
					: new BatchOutcome.Next(result.conversationHistory());
		}
		catch (ToolCallLimitExceededException ex) {
			// Spring AI's tool-call limits end the loop the way its own advisor does
			return new BatchOutcome.Limit(ex.buildGeneration());
		}
	}

	/**
	 * Run the batch's calls (each with its own MCP metadata) in one go; each result
	 * passes the tool-result hooks as soon as its tool returns.
	 */
	private Step<BatchOutcome> dispatch(Turn turn, ToolCallingManager manager, List<Message> history,
			ToolCallingChatOptions options, AssistantMessage output, Preflight preflight) {
		DispatchedBatch batch = new DispatchedBatch(turn, this.hooks, preflight.calls, preflight.arguments,
				preflight.metadata, preflight.refusals);
		return Step.blocking(() -> runTools(turn, manager, history, options, output, batch), Step::done);
	}

	private BatchOutcome runTools(Turn turn, ToolCallingManager manager, List<Message> history,
			ToolCallingChatOptions options, AssistantMessage output, DispatchedBatch batch) {
		List<ToolCallback> wrapped = new ArrayList<>(options.getToolCallbacks().size());
		options.getToolCallbacks().forEach((callback) -> wrapped.add(new HookedToolCallback(callback, batch)));
		ToolCallingChatOptions callOptions = (ToolCallingChatOptions) options.mutate().toolCallbacks(wrapped).build();
		// refused calls never reach Spring AI: they do not run, nor count against its
		// tool-call limits
		List<AssistantMessage.ToolCall> toRun = batch.toRun();
		List<ToolResponseMessage.ToolResponse> responses = List.of();
		boolean returnDirect = false;
		if (!toRun.isEmpty()) {
			AssistantMessage dispatched = output.mutate().toolCalls(toRun).build();
			ToolExecutionResult result;
			try (CurrentTurn.Scope scope = CurrentTurn.open(turn)) {
				result = manager.executeToolCalls(new Prompt(history, callOptions),
						new ChatResponse(List.of(new Generation(dispatched))));
			}
			catch (ToolCallLimitExceededException ex) {
				// Spring AI's tool-call limits end the loop the way its own advisor does
				return new BatchOutcome.Limit(ex.buildGeneration());
			}
			List<Message> conversation = result.conversationHistory();
			responses = ((ToolResponseMessage) conversation.get(conversation.size() - 1)).getResponses();
			// the model must read a refusal: a batch with one is not returned directly
			returnDirect = result.returnDirect() && toRun.size() == batch.calls().size();
		}
		List<AssistantMessage.ToolCall> calls = batch.calls();
		Results results = new Results(calls.size());
		int dispatchedIndex = 0;
		for (int i = 0; i < calls.size(); i++) {
			String refusal = batch.refusal(i);
			String value = "";
			if (refusal != null) {
				// the tool-result hooks see the refusal like a failed tool's result
				batch.completed(i, refusal, true);
			}
			else {
				value = (dispatchedIndex < responses.size()) ? responses.get(dispatchedIndex).responseData() : "";
				dispatchedIndex++;
				if (batch.result(i) == null && batch.hasThrown(i)) {
					batch.completed(i, value, true);
				}
			}
			ToolResultPayload hooked = batch.result(i);
			results.add((hooked != null) ? hooked : turn.toolResult(calls.get(i).name(), Map.of(), value, false),
					calls.get(i), batch.arguments(i), hooked != null);
		}
		return next(history, output, results, returnDirect);
	}

	/**
	 * The history replayed to the model: the calls with the arguments the result hooks
	 * left, and the results they left.
	 */
	private static BatchOutcome next(List<Message> history, AssistantMessage output, Results results,
			boolean returnDirect) {
		List<Message> next = new ArrayList<>(history.size() + 2);
		next.addAll(history);
		next.add(output.mutate().toolCalls(results.replayedCalls).build());
		ToolResponseMessage.Builder toolMessage = ToolResponseMessage.builder().responses(results.responses);
		if (!results.errorIds.isEmpty()) {
			toolMessage.metadata(Map.of(ERROR_IDS, results.errorIds));
		}
		next.add(toolMessage.build());
		if (returnDirect) {
			return new BatchOutcome.Direct(
					ToolExecutionResult.builder().conversationHistory(next).returnDirect(true).build());
		}
		return new BatchOutcome.Next(next);
	}

	private static @Nullable String duplicateId(List<AssistantMessage.ToolCall> calls) {
		Set<String> ids = new HashSet<>();
		for (AssistantMessage.ToolCall call : calls) {
			// some providers (Ollama, Gemini) send no ids at all; only a repeated id is
			// a duplicate
			if (!call.id().isBlank() && !ids.add(call.id())) {
				return call.id();
			}
		}
		return null;
	}

	private static Set<String> offeredTools(ToolCallingChatOptions options) {
		Set<String> names = new HashSet<>();
		if (options.getToolCallbacks() != null) {
			options.getToolCallbacks().forEach((callback) -> names.add(callback.getToolDefinition().name()));
		}
		return names;
	}

	/**
	 * The calls as preflight left them, and the MCP metadata of each.
	 */
	private static final class Preflight {

		final List<AssistantMessage.ToolCall> calls;

		/** Each call's arguments, parsed once from its JSON text. */
		final List<Map<String, Object>> arguments;

		final List<Map<String, Object>> metadata;

		/** The calls as payloads, for the approval policy; empty for a resumed batch. */
		final List<ToolCallPayload> payloads;

		/** Each call's refusal, {@code null} for a call that runs. */
		final List<@Nullable String> refusals;

		Preflight(int size) {
			this.calls = new ArrayList<>(size);
			this.arguments = new ArrayList<>(size);
			this.metadata = new ArrayList<>(size);
			this.payloads = new ArrayList<>(size);
			this.refusals = new ArrayList<>(size);
		}

		/**
		 * Whether a call is refused: then the batch cannot go to Spring AI as the model
		 * sent it.
		 */
		boolean refusesAny() {
			for (String refusal : this.refusals) {
				if (refusal != null) {
					return true;
				}
			}
			return false;
		}

		/**
		 * The calls that run, as payloads: a refused call asks for no approval.
		 */
		List<ToolCallPayload> toRun() {
			// by position: the engine refuses calls too, without a refusal on the payload
			List<ToolCallPayload> toRun = new ArrayList<>(this.payloads.size());
			for (int i = 0; i < this.payloads.size(); i++) {
				if (this.refusals.get(i) == null) {
					toRun.add(this.payloads.get(i));
				}
			}
			return toRun;
		}

		/**
		 * The calls with their arguments as the hooks and the approval policy saw them,
		 * as compact JSON: a paused batch is stored, shown and run in this form, so the
		 * approval question lists each call exactly as it runs (the model's own text
		 * could spread over lines, or say one thing twice with duplicate keys).
		 */
		List<AssistantMessage.ToolCall> asShown() {
			List<AssistantMessage.ToolCall> shown = new ArrayList<>(this.calls.size());
			for (int i = 0; i < this.calls.size(); i++) {
				AssistantMessage.ToolCall call = this.calls.get(i);
				shown.add(new AssistantMessage.ToolCall(call.id(), call.type(), call.name(),
						ToolArguments.toJson(this.payloads.get(i).arguments())));
			}
			return shown;
		}

		void accept(AssistantMessage.ToolCall call, Map<String, Object> callArguments, Map<String, Object> callMetadata,
				@Nullable ToolCallPayload payload, @Nullable String refusal) {
			this.calls.add(call);
			this.arguments.add(callArguments);
			this.metadata.add(callMetadata);
			this.refusals.add(refusal);
			if (payload != null) {
				this.payloads.add(payload);
			}
		}

	}

	/**
	 * The batch's calls as they pass the tool-call hooks, one after another in batch
	 * order ({@link HookRunner#runEach}): the first retry or failure ends the preflight,
	 * and nothing in the batch runs.
	 */
	private static final class PreflightCalls implements HookRunner.Sequence<ToolCallPayload> {

		private final Turn turn;

		private final List<AssistantMessage.ToolCall> calls;

		private final Set<String> offered;

		private final Preflight preflight;

		private int index;

		private @Nullable ToolCallPayload current;

		/** Whether the current call's arguments are not one JSON object. */
		private boolean currentUnreadable;

		/** Why the preflight stopped the batch, {@code null} while it goes on. */
		@Nullable BatchOutcome stopped;

		PreflightCalls(Turn turn, List<AssistantMessage.ToolCall> calls, Set<String> offered, Preflight preflight) {
			this.turn = turn;
			this.calls = calls;
			this.offered = offered;
			this.preflight = preflight;
		}

		@Override
		public @Nullable ToolCallPayload next() {
			if (this.stopped != null || this.index == this.calls.size()) {
				return null;
			}
			AssistantMessage.ToolCall call = this.calls.get(this.index);
			// parsed once for the batch; the payload keeps the arguments, frozen
			Map<String, Object> arguments = ToolArguments.parseObject(call.arguments());
			this.currentUnreadable = arguments == null;
			ToolCallPayload payload = payloadOf(this.turn, call, arguments);
			if (payload == null) {
				this.stopped = tooDeep(call);
			}
			this.current = payload;
			return payload;
		}

		@Override
		public boolean accept(ModifyResult<ToolCallPayload> result) {
			AssistantMessage.ToolCall call = this.calls.get(this.index++);
			ToolCallPayload payload = Objects.requireNonNull(this.current);
			this.stopped = stopOrAccept(call, payload, result);
			return this.stopped == null;
		}

		private @Nullable BatchOutcome stopOrAccept(AssistantMessage.ToolCall call, ToolCallPayload payload,
				ModifyResult<ToolCallPayload> result) {
			if (result instanceof ModifyResult.Signalled<ToolCallPayload> signalled
					&& signalled.signal() instanceof RetryModel retry) {
				return new BatchOutcome.Retry(retry.feedback());
			}
			if (result instanceof ModifyResult.Failed<ToolCallPayload> failed) {
				return new BatchOutcome.Closed(
						failed.failure().kind().name().toLowerCase() + " in " + failed.failure().hookName());
			}
			ToolCallPayload rewritten = ((ModifyResult.Proceed<ToolCallPayload>) result).payload();
			if (!this.offered.contains(rewritten.toolName())) {
				return new BatchOutcome.Closed(
						"tool-call hook chose tool '" + rewritten.toolName() + "', which the model was not offered");
			}
			Map<String, Object> metadata = ToolArguments.jsonCopy(rewritten.metadata());
			if (metadata == null) {
				return new BatchOutcome.Closed("tool-call hook metadata with keys " + rewritten.metadata().keySet()
						+ " is not JSON-serializable");
			}
			boolean unchanged = Objects.equals(rewritten.arguments(), payload.arguments());
			// the model's text that is not one JSON object never goes back to it: a call
			// with such text is refused, and replayed with no arguments
			String argumentsJson = !unchanged ? ToolArguments.toJson(rewritten.arguments())
					: this.currentUnreadable ? NO_ARGUMENTS : call.arguments();
			// rewritten arguments are read back from the JSON the tool receives, as the
			// result hooks and the replay have always seen them
			Map<String, Object> arguments = unchanged ? payload.arguments() : ToolArguments.parse(argumentsJson);
			// the hooks saw no arguments where the model sent text that is not one JSON
			// object; unless a hook gave the call arguments, the tool would receive that
			// text unseen
			String refusal = (rewritten.refusal() == null && unchanged && this.currentUnreadable) ? UNREADABLE_ARGUMENTS
					: rewritten.refusal();
			this.preflight.accept(
					new AssistantMessage.ToolCall(call.id(), call.type(), rewritten.toolName(), argumentsJson),
					arguments, metadata, rewritten, refusal);
			return null;
		}

	}

	/**
	 * The results after the tool-result hooks, in batch order.
	 */
	private static final class Results {

		final List<AssistantMessage.ToolCall> replayedCalls;

		final List<ToolResponseMessage.ToolResponse> responses;

		final List<String> errorIds = new ArrayList<>();

		Results(int size) {
			this.replayedCalls = new ArrayList<>(size);
			this.responses = new ArrayList<>(size);
		}

		/**
		 * Add a call's result; the arguments of a call whose tool never ran (a limit) are
		 * replayed as the model sent them.
		 */
		void add(ToolResultPayload result, AssistantMessage.ToolCall call, Map<String, Object> callArguments,
				boolean ran) {
			String arguments = (!ran || Objects.equals(result.arguments(), callArguments)) ? call.arguments()
					: ToolArguments.toJson(result.arguments());
			this.replayedCalls.add(new AssistantMessage.ToolCall(call.id(), call.type(), call.name(), arguments));
			this.responses.add(new ToolResponseMessage.ToolResponse(call.id(), call.name(), result.value()));
			if (result.isError()) {
				this.errorIds.add(call.id());
			}
		}

	}

}
