package io.mantlehooks.ai;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.mantlehooks.HookPoint;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.ModifyResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.util.json.JsonParser;

/**
 * One tool-call batch of a model response: the preflight (tool-call hooks once per call,
 * in batch order, before any tool runs), the dispatch through Spring AI's
 * {@link ToolCallingManager}, and the tool-result hooks on each result before it is
 * replayed to the model. With no tool hooks registered the batch is dispatched untouched.
 */
final class ToolStage {

	/** ToolResponseMessage metadata: the ids of the results that count as errors. */
	static final String ERROR_IDS = "mantle.tool_error_ids";

	private static final Log logger = LogFactory.getLog(ToolStage.class);

	private final HookRunner hooks;

	private final ToolCallingManager toolCallingManager;

	ToolStage(HookRunner hooks, ToolCallingManager toolCallingManager) {
		this.hooks = hooks;
		this.toolCallingManager = toolCallingManager;
	}

	boolean buffersReplies() {
		return this.hooks.hasModifier(HookPoint.TOOL_CALL);
	}

	Step run(TurnState state, List<Message> history, ToolCallingChatOptions options, ChatResponse response) {
		try (CurrentTurn.Scope scope = CurrentTurn.open(state)) {
			return runBatch(state, history, options, response);
		}
		catch (ToolCallLimitExceededException ex) {
			// Spring AI's tool-call limits end the loop the way its own advisor does
			return new Step.Limit(ex.buildGeneration());
		}
	}

	private Step runBatch(TurnState state, List<Message> history, ToolCallingChatOptions options,
			ChatResponse response) {
		if (!this.hooks.hasHooks(HookPoint.TOOL_CALL) && !this.hooks.hasHooks(HookPoint.TOOL_RESULT)) {
			ToolExecutionResult result = this.toolCallingManager.executeToolCalls(new Prompt(history, options),
					response);
			return result.returnDirect() ? new Step.Direct(result) : new Step.Next(result.conversationHistory());
		}
		Generation generation = response.getResults()
			.stream()
			.filter((candidate) -> candidate.getOutput().hasToolCalls())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No tool call requested by the chat model"));
		AssistantMessage output = generation.getOutput();
		Preflight preflight = preflight(state, output.getToolCalls(), options);
		if (preflight.step() != null) {
			return preflight.step();
		}
		return dispatch(state, history, options, output, preflight.calls(), preflight.metadata());
	}

	/**
	 * Run the tool-call hooks once per call, in batch order, before anything runs. The
	 * first retry or failure ends the preflight, and nothing in the batch runs.
	 */
	private Preflight preflight(TurnState state, List<AssistantMessage.ToolCall> calls,
			ToolCallingChatOptions options) {
		if (!this.hooks.hasHooks(HookPoint.TOOL_CALL)) {
			return new Preflight(calls, calls.stream().<Map<String, Object>>map((call) -> Map.of()).toList(), null);
		}
		Set<String> ids = new HashSet<>();
		for (AssistantMessage.ToolCall call : calls) {
			// some providers (Ollama, Gemini) send no ids at all; only a repeated id is a
			// duplicate
			if (!call.id().isBlank() && !ids.add(call.id())) {
				return Preflight.stop(closed(state, "duplicate tool-call id '" + call.id() + "' in one batch"));
			}
		}
		Set<String> offered = offeredTools(options);
		List<AssistantMessage.ToolCall> dispatched = new ArrayList<>(calls.size());
		List<Map<String, Object>> metadata = new ArrayList<>(calls.size());
		for (AssistantMessage.ToolCall call : calls) {
			Map<String, Object> arguments = ChatResponses.parseArguments(call.arguments());
			ToolCallPayload payload = new ToolCallPayload(call.name(), arguments, Map.of(), Map.of(), state.senderId(),
					state.call(), state.channel());
			this.hooks.observe(HookPoint.TOOL_CALL, payload);
			ModifyResult<ToolCallPayload> result = this.hooks.modify(HookPoint.TOOL_CALL, payload);
			if (result instanceof ModifyResult.Signalled<ToolCallPayload> signalled
					&& signalled.signal() instanceof RetryModel retry) {
				return Preflight.stop(new Step.Retry(retry.feedback()));
			}
			if (result instanceof ModifyResult.Failed<ToolCallPayload> failed) {
				return Preflight.stop(closed(state,
						failed.failure().kind().name().toLowerCase() + " in " + failed.failure().hookName()));
			}
			ToolCallPayload rewritten = ((ModifyResult.Proceed<ToolCallPayload>) result).payload();
			if (!offered.contains(rewritten.toolName())) {
				return Preflight.stop(closed(state,
						"tool-call hook chose tool '" + rewritten.toolName() + "', which the model was not offered"));
			}
			Map<String, Object> meta = jsonCopy(rewritten.metadata());
			if (meta == null) {
				return Preflight.stop(closed(state, "tool-call hook metadata with keys " + rewritten.metadata().keySet()
						+ " is not JSON-serializable"));
			}
			metadata.add(meta);
			String argumentsJson = Objects.equals(rewritten.arguments(), arguments) ? call.arguments()
					: JsonParser.toJson(rewritten.arguments());
			dispatched.add(new AssistantMessage.ToolCall(call.id(), call.type(), rewritten.toolName(), argumentsJson));
		}
		return new Preflight(dispatched, metadata, null);
	}

	/**
	 * Run the calls one at a time (each with its own MCP metadata), then the tool-result
	 * hooks on each result, and build the history replayed to the model.
	 */
	private Step dispatch(TurnState state, List<Message> history, ToolCallingChatOptions options,
			AssistantMessage output, List<AssistantMessage.ToolCall> calls, List<Map<String, Object>> metadata) {
		List<AssistantMessage.ToolCall> replayedCalls = new ArrayList<>(calls.size());
		List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>(calls.size());
		List<String> errorIds = new ArrayList<>();
		boolean returnDirect = true;
		// each call sees the calls before it, so Spring AI's per-turn tool-call limits
		// still count
		List<Message> running = history;
		for (int i = 0; i < calls.size(); i++) {
			AssistantMessage.ToolCall call = calls.get(i);
			Executed executed = execute(running, options, output, call, metadata.get(i));
			running = (executed.history() != null) ? executed.history() : running;
			returnDirect = returnDirect && executed.returnDirect();
			ToolResultPayload result = toolResult(state, call, executed);
			replayedCalls.add(new AssistantMessage.ToolCall(call.id(), call.type(), call.name(),
					Objects.equals(result.arguments(), ChatResponses.parseArguments(call.arguments()))
							? call.arguments() : JsonParser.toJson(result.arguments())));
			responses.add(new ToolResponseMessage.ToolResponse(call.id(), call.name(), result.value()));
			if (result.isError()) {
				errorIds.add(call.id());
			}
		}
		List<Message> next = new ArrayList<>(history);
		next.add(output.mutate().toolCalls(replayedCalls).build());
		ToolResponseMessage.Builder toolMessage = ToolResponseMessage.builder().responses(responses);
		if (!errorIds.isEmpty()) {
			toolMessage.metadata(Map.of(ERROR_IDS, errorIds));
		}
		next.add(toolMessage.build());
		if (returnDirect) {
			return new Step.Direct(ToolExecutionResult.builder().conversationHistory(next).returnDirect(true).build());
		}
		return new Step.Next(next);
	}

	private Executed execute(List<Message> history, ToolCallingChatOptions options, AssistantMessage output,
			AssistantMessage.ToolCall call, Map<String, Object> mcpMetadata) {
		List<HookedToolCallback> wrapped = new ArrayList<>();
		HookedToolCallback target = null;
		for (ToolCallback callback : options.getToolCallbacks()) {
			HookedToolCallback hooked = new HookedToolCallback(callback,
					callback.getToolDefinition().name().equals(call.name()) ? mcpMetadata : Map.of());
			if (target == null && callback.getToolDefinition().name().equals(call.name())) {
				target = hooked;
			}
			wrapped.add(hooked);
		}
		ToolCallingChatOptions callOptions = (ToolCallingChatOptions) options.mutate()
			.toolCallbacks(new ArrayList<ToolCallback>(wrapped))
			.build();
		AssistantMessage single = output.mutate().content("").toolCalls(List.of(call)).build();
		String value;
		boolean failed;
		boolean returnDirect;
		List<Message> executedHistory = null;
		try {
			ToolExecutionResult result = this.toolCallingManager.executeToolCalls(new Prompt(history, callOptions),
					new ChatResponse(List.of(new Generation(single))));
			Message last = result.conversationHistory().get(result.conversationHistory().size() - 1);
			value = ((ToolResponseMessage) last).getResponses().get(0).responseData();
			failed = target != null && target.failed();
			returnDirect = result.returnDirect();
			executedHistory = result.conversationHistory();
		}
		catch (ToolCallLimitExceededException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// the tool threw past Spring AI's exception processor; the model gets a
			// neutral error result, never the exception text
			logger.warn("Tool '" + call.name() + "' failed", ex);
			value = "Tool '" + call.name() + "' failed.";
			failed = true;
			returnDirect = false;
		}
		return new Executed(value, failed, returnDirect, executedHistory);
	}

	private ToolResultPayload toolResult(TurnState state, AssistantMessage.ToolCall call, Executed executed) {
		ToolResultPayload payload = new ToolResultPayload(call.name(), ChatResponses.parseArguments(call.arguments()),
				executed.value(), executed.failed(), state.senderId(), state.call(), state.channel());
		if (!this.hooks.hasHooks(HookPoint.TOOL_RESULT)) {
			return payload;
		}
		this.hooks.observe(HookPoint.TOOL_RESULT, payload);
		ModifyResult<ToolResultPayload> result = this.hooks.modify(HookPoint.TOOL_RESULT, payload);
		// fail open: a crash, timeout or ignored signal keeps the original result
		return (result instanceof ModifyResult.Proceed<ToolResultPayload> proceed) ? proceed.payload() : payload;
	}

	private static Step closed(TurnState state, String reason) {
		state.outcome(Outcomes.HOOK_ERROR, reason);
		return new Step.Closed(reason);
	}

	private static Set<String> offeredTools(ChatOptions options) {
		Set<String> names = new HashSet<>();
		if (options instanceof ToolCallingChatOptions toolOptions && toolOptions.getToolCallbacks() != null) {
			toolOptions.getToolCallbacks().forEach((callback) -> names.add(callback.getToolDefinition().name()));
		}
		return names;
	}

	/**
	 * A JSON round trip: proves the metadata serializable and deep-copies it, so later
	 * changes to the hook's own map cannot alter what the MCP server receives.
	 */
	@SuppressWarnings("unchecked")
	private static @Nullable Map<String, Object> jsonCopy(Map<String, Object> metadata) {
		if (metadata.isEmpty()) {
			return Map.of();
		}
		try {
			return JsonParser.fromJson(JsonParser.toJson(metadata), Map.class);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private record Executed(String value, boolean failed, boolean returnDirect, @Nullable List<Message> history) {
	}

	private record Preflight(List<AssistantMessage.ToolCall> calls, List<Map<String, Object>> metadata,
			@Nullable Step step) {

		static Preflight stop(Step step) {
			return new Preflight(List.of(), List.of(), step);
		}

	}

	/**
	 * What the loop does after a tool-call batch.
	 */
	sealed interface Step {

		/** Call the model again with this history. */
		record Next(List<Message> history) implements Step {
		}

		/** Answer with the tool results directly. */
		record Direct(ToolExecutionResult result) implements Step {
		}

		/** Discard the batch and call the model again with the feedback. */
		record Retry(String feedback) implements Step {
		}

		/** Spring AI's tool-call limit was reached: answer with its generation. */
		record Limit(Generation generation) implements Step {
		}

		/** Fail closed: nothing ran, the user gets the tool-call error reply. */
		record Closed(String reason) implements Step {
		}

	}

}
