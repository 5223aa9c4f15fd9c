package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ai.turn.HookSteps;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.message.FrozenMessageCache;
import io.mantlehooks.message.FrozenMessages;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.execution.HookRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * The hooks around one model call, written once for both drivers: before it, the retry
 * feedback joins the prompt and the model-request hooks see the final prompt; after it,
 * the model-response hooks see what the provider returned.
 */
final class ModelCallStage {

	private static final Log logger = LogFactory.getLog(ModelCallStage.class);

	private final HookRunner hooks;

	private final HookResponses responses;

	/**
	 * The application's frozen messages, kept across turns: a conversation's history from
	 * chat memory is frozen once, not once per turn.
	 */
	private final FrozenMessageCache frozenHistory;

	ModelCallStage(HookRunner hooks, HookResponses responses) {
		this.hooks = hooks;
		this.responses = responses;
		this.frozenHistory = new FrozenMessageCache();
	}

	/**
	 * Return whether the response hook may change or discard a completion, so a stream
	 * must be complete before anything of it goes on.
	 */
	boolean buffersResponses(Turn turn) {
		return this.hooks.hasModifier(HookPoint.MODEL_RESPONSE, turn.scope());
	}

	boolean observesResponses(Turn turn) {
		return this.hooks.hasObservers(HookPoint.MODEL_RESPONSE, turn.scope());
	}

	/**
	 * Prepare the provider request: add the round's feedback and run the model-request
	 * hooks. The result is the request to send, or the reply that replaces the call when
	 * the hook fails closed. An unchanged request is passed on as it is.
	 */
	Step<Prepared> prepare(Turn turn, ChatClientRequest request) {
		String feedback = Rounds.feedback(request);
		List<Message> messages = request.prompt().getInstructions();
		if (feedback != null) {
			messages = new ArrayList<>(messages);
			messages.add(new SystemMessage(feedback));
		}
		if (!this.hooks.hasHooks(HookPoint.MODEL_REQUEST, turn.scope())) {
			return Step.done(Prepared.send((feedback != null) ? withPrompt(request, messages, null) : request));
		}
		ChatOptions options = request.prompt().getOptions();
		ModelRequestPayload payload = turn.modelRequest(messages, toolNames(options), Rounds.iteration(request),
				this.frozenHistory);
		List<Message> sent = messages;
		return HookSteps.run(this.hooks, HookPoint.MODEL_REQUEST, payload, turn).map((result) -> {
			if (result instanceof ModifyResult.Failed<ModelRequestPayload> failed) {
				String reason = failed.failure().kind().name().toLowerCase() + " in " + failed.failure().hookName();
				String text = this.responses.resolve(null, HookResponses.MODEL_REQUEST_HOOK_ERROR);
				return Prepared
					.reply(RoundReport.requestFailed(reason).attachTo(ChatResponses.textResponse(request, text)));
			}
			if (result instanceof ModifyResult.Proceed<ModelRequestPayload> proceed && proceed.payload() != payload) {
				ModelRequestPayload rewritten = proceed.payload();
				// the provider gets the messages the turn had, never the hooks' frozen
				// views of them (FrozenMessages)
				List<Message> messagesToSend = (rewritten.messages() == payload.messages()) ? sent
						: FrozenMessages.thaw(rewritten.messages());
				return Prepared.send(withPrompt(request, messagesToSend,
						ModelSettingsApplier.apply(options, rewritten.modelSettings())));
			}
			return Prepared
				.send((sent != request.prompt().getInstructions()) ? withPrompt(request, sent, null) : request);
		});
	}

	/**
	 * Review the provider's response: the response hooks may rewrite it (the rewrite is
	 * what the loop uses) or ask for another try ({@link RoundReport#retry}).
	 */
	Step<ChatClientResponse> review(Turn turn, ChatClientResponse response, long latencyMs) {
		if (!this.hooks.hasHooks(HookPoint.MODEL_RESPONSE, turn.scope())) {
			return Step.done(response);
		}
		AssistantMessage output = ChatResponses.output(response.chatResponse());
		ModelResponsePayload payload = turn.modelResponse((output != null) ? output.getText() : null,
				ChatResponses.toolCalls(output), latencyMs);
		return HookSteps.run(this.hooks, HookPoint.MODEL_RESPONSE, payload, turn).map((result) -> {
			if (result instanceof ModifyResult.Signalled<ModelResponsePayload> signalled
					&& signalled.signal() instanceof RetryModel retry) {
				return RoundReport.retry(retry.feedback()).attachTo(response);
			}
			if (result instanceof ModifyResult.Proceed<ModelResponsePayload> proceed && proceed.payload() != payload
					&& output != null) {
				return rewrite(response, output, payload, proceed.payload());
			}
			// fail open, or nothing changed: the provider's response stands
			return response;
		});
	}

	/**
	 * Let observers see a response streamed live once it is complete.
	 */
	void observe(Turn turn, StreamedResponse response, long latencyMs) {
		this.hooks.observe(HookPoint.MODEL_RESPONSE,
				turn.modelResponse(response.text(), response.toolCalls(), latencyMs), turn.scope());
	}

	private static ChatClientRequest withPrompt(ChatClientRequest request, List<Message> messages,
			@Nullable ChatOptions options) {
		ChatOptions callOptions = (options != null) ? options : request.prompt().getOptions();
		Prompt prompt = (callOptions != null) ? new Prompt(messages, callOptions) : new Prompt(messages);
		return new ChatClientRequest(prompt, request.context());
	}

	private static List<String> toolNames(@Nullable ChatOptions options) {
		if (options instanceof ToolCallingChatOptions toolOptions && toolOptions.getToolCallbacks() != null) {
			return toolOptions.getToolCallbacks()
				.stream()
				.map((callback) -> callback.getToolDefinition().name())
				.toList();
		}
		return List.of();
	}

	private static ChatClientResponse rewrite(ChatClientResponse response, AssistantMessage output,
			ModelResponsePayload original, ModelResponsePayload rewritten) {
		Set<String> modelIds = new HashSet<>();
		original.toolCalls().forEach((call) -> modelIds.add(call.id()));
		List<ModelToolCall> calls = rewritten.toolCalls();
		Set<String> ids = new HashSet<>();
		for (ModelToolCall call : calls) {
			if (!modelIds.contains(call.id()) || !ids.add(call.id())) {
				logger.warn("Model-response hook returned tool calls with ids the model never sent, or one id twice; "
						+ "keeping the original response (tool-call ids belong to the model)");
				return response;
			}
		}
		AssistantMessage.Builder<?> builder = output.mutate()
			.toolCalls(ChatResponses.toSpringToolCalls(calls, output.getToolCalls()));
		builder.content(rewritten.text());
		return new ChatClientResponse(ChatResponses.withFirstOutput(response.chatResponse(), builder.build()),
				response.context());
	}

	/**
	 * Either the request to send to the provider or the reply that replaces the call.
	 *
	 * @param request the request to send, {@code null} when the call is replaced
	 * @param reply the reply instead of the call, else {@code null}
	 */
	record Prepared(@Nullable ChatClientRequest request, @Nullable ChatClientResponse reply) {

		static Prepared send(ChatClientRequest request) {
			return new Prepared(request, null);
		}

		static Prepared reply(ChatClientResponse reply) {
			return new Prepared(null, reply);
		}

	}

}
