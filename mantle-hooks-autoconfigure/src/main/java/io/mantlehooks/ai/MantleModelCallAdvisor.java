package io.mantlehooks.ai;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.RetryModel;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.ModifyResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.core.Ordered;

/**
 * The last advisor before the provider: runs the model-request hooks on the final prompt
 * of each model call and the model-response hooks on what the provider returned. It owns
 * {@link RetryModel} from the response hook (the model is called again with the feedback
 * as a system note on that request only) and the per-turn model-call cap.
 */
public final class MantleModelCallAdvisor implements CallAdvisor, StreamAdvisor {

	/**
	 * Just inside Spring AI's model advisors, which sit at
	 * {@link Ordered#LOWEST_PRECEDENCE}.
	 */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1;

	private static final Log logger = LogFactory.getLog(MantleModelCallAdvisor.class);

	private static final ChatClientMessageAggregator AGGREGATOR = new ChatClientMessageAggregator();

	private final HookRunner hooks;

	private final HookResponses responses;

	private final int maxIterations;

	MantleModelCallAdvisor(HookRunner hooks, HookResponses responses, int maxIterations) {
		this.hooks = hooks;
		this.responses = responses;
		this.maxIterations = maxIterations;
	}

	@Override
	public String getName() {
		return "mantleModelCall";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		return call(request, (prepared) -> chain.copy(this).nextCall(prepared));
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		TurnState state = TurnState.of(request);
		if (buffersResponses()) {
			// a response modifier must see the whole completion before anything is
			// emitted
			return attempt(request, chain, state).flux();
		}
		return Blocking.call(state, () -> prepare(request)).flatMapMany((prepared) -> {
			ChatClientResponse reply = prepared.reply();
			return (reply != null) ? Flux.just(reply) : observeWhenComplete(request,
					CurrentTurnPropagation.subscribeWithin(state, chain.copy(this).nextStream(prepared.request())));
		});
	}

	/**
	 * One buffered model call, and another after each {@link RetryModel}; the same steps
	 * as the call path, without blocking a thread while the model streams.
	 */
	private Mono<ChatClientResponse> attempt(ChatClientRequest request, StreamAdvisorChain chain, TurnState state) {
		return Blocking.call(state, () -> prepare(request)).flatMap((prepared) -> {
			ChatClientResponse reply = prepared.reply();
			if (reply != null) {
				return Mono.just(reply);
			}
			long started = System.nanoTime();
			return aggregate(
					CurrentTurnPropagation.subscribeWithin(state, chain.copy(this).nextStream(prepared.request())))
				.flatMap((response) -> Blocking.call(state,
						() -> onResponse(state, response, (System.nanoTime() - started) / 1_000_000)))
				.flatMap((decision) -> {
					RetryModel retry = decision.retry();
					if (retry == null) {
						return Mono.just(decision.response());
					}
					state.retryWith(retry.feedback());
					return attempt(request, chain, state);
				});
		});
	}

	boolean buffersResponses() {
		return this.hooks.hasModifier(HookPoint.MODEL_RESPONSE);
	}

	private ChatClientResponse call(ChatClientRequest request,
			Function<ChatClientRequest, ChatClientResponse> provider) {
		TurnState state = TurnState.of(request);
		while (true) {
			Prepared prepared = prepare(request);
			ChatClientResponse reply = prepared.reply();
			if (reply != null) {
				return reply;
			}
			long started = System.nanoTime();
			ChatClientResponse response = provider.apply(prepared.request());
			Long latencyMs = (System.nanoTime() - started) / 1_000_000;
			ResponseDecision decision = onResponse(state, response, latencyMs);
			if (decision.retry() == null) {
				return decision.response();
			}
			state.retryWith(decision.retry().feedback());
		}
	}

	/**
	 * Count the call, add pending retry feedback, and run the model-request hooks.
	 * Returns either the request to send or, when the call must not happen, the reply
	 * instead.
	 */
	private Prepared prepare(ChatClientRequest request) {
		TurnState state = TurnState.of(request);
		if (state.modelCalls() >= this.maxIterations) {
			logger.warn("Turn " + state.turnId() + " reached mantle.hooks.max-iterations (" + this.maxIterations
					+ " model calls); replying " + HookResponses.MAX_ITERATIONS_REACHED);
			return Prepared.reply(request, ChatResponses.textResponse(request,
					this.responses.resolve(null, HookResponses.MAX_ITERATIONS_REACHED)));
		}
		int iteration = state.nextModelCall();
		List<Message> messages = request.prompt().getInstructions();
		String feedback = state.takeFeedback();
		if (feedback != null) {
			messages = new ArrayList<>(messages);
			messages.add(new SystemMessage(feedback));
		}
		ChatOptions options = request.prompt().getOptions();
		if (this.hooks.hasHooks(HookPoint.MODEL_REQUEST)) {
			ModelRequestPayload payload = new ModelRequestPayload(messages, ModelSettings.empty(), toolNames(options),
					iteration, state.senderId(), state.call(), state.channel());
			this.hooks.observe(HookPoint.MODEL_REQUEST, payload);
			ModifyResult<ModelRequestPayload> result = this.hooks.modify(HookPoint.MODEL_REQUEST, payload);
			if (result instanceof ModifyResult.Failed<ModelRequestPayload> failed) {
				state.outcome(Outcomes.HOOK_ERROR,
						failed.failure().kind().name().toLowerCase() + " in " + failed.failure().hookName());
				return Prepared.reply(request, ChatResponses.textResponse(request,
						this.responses.resolve(null, HookResponses.MODEL_REQUEST_HOOK_ERROR)));
			}
			if (result instanceof ModifyResult.Proceed<ModelRequestPayload> proceed) {
				messages = proceed.payload().messages();
				options = ModelSettingsApplier.apply(options, proceed.payload().modelSettings());
			}
		}
		Prompt prompt = (options != null) ? new Prompt(messages, options) : new Prompt(messages);
		return Prepared.send(request.mutate().prompt(prompt).build());
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

	private ResponseDecision onResponse(TurnState state, ChatClientResponse response, Long latencyMs) {
		if (!this.hooks.hasHooks(HookPoint.MODEL_RESPONSE)) {
			return new ResponseDecision(response, null);
		}
		AssistantMessage output = ChatResponses.output(response.chatResponse());
		ModelResponsePayload payload = new ModelResponsePayload((output != null) ? output.getText() : null,
				ChatResponses.toolCalls(output), latencyMs, state.senderId(), state.call(), state.channel());
		this.hooks.observe(HookPoint.MODEL_RESPONSE, payload);
		ModifyResult<ModelResponsePayload> result = this.hooks.modify(HookPoint.MODEL_RESPONSE, payload);
		if (result instanceof ModifyResult.Signalled<ModelResponsePayload> signalled
				&& signalled.signal() instanceof RetryModel retry) {
			return new ResponseDecision(response, retry);
		}
		if (result instanceof ModifyResult.Proceed<ModelResponsePayload> proceed && proceed.payload() != payload
				&& output != null) {
			return new ResponseDecision(rewrite(response, output, payload, proceed.payload()), null);
		}
		// fail open, or nothing changed: the provider's response stands
		return new ResponseDecision(response, null);
	}

	private static ChatClientResponse rewrite(ChatClientResponse response, AssistantMessage output,
			ModelResponsePayload original, ModelResponsePayload rewritten) {
		Set<String> modelIds = original.toolCalls().stream().map(ModelToolCall::id).collect(Collectors.toSet());
		List<ModelToolCall> calls = rewritten.toolCalls();
		List<String> ids = calls.stream().map(ModelToolCall::id).toList();
		if (!modelIds.containsAll(ids) || new java.util.HashSet<>(ids).size() != ids.size()) {
			logger.warn("Model-response hook returned tool calls with ids the model never sent, or one id twice; "
					+ "keeping the original response (tool-call ids belong to the model)");
			return response;
		}
		AssistantMessage.Builder<?> builder = output.mutate()
			.toolCalls(ChatResponses.toSpringToolCalls(calls, output.getToolCalls()));
		builder.content(rewritten.text());
		return response.mutate()
			.chatResponse(ChatResponses.withFirstOutput(response.chatResponse(), builder.build()))
			.build();
	}

	/**
	 * Streams the provider's chunks live and lets response observers see the completed
	 * response at the end; used when no hook may change the response.
	 */
	private Flux<ChatClientResponse> observeWhenComplete(ChatClientRequest request, Flux<ChatClientResponse> chunks) {
		if (!this.hooks.hasHooks(HookPoint.MODEL_RESPONSE)) {
			return chunks;
		}
		TurnState state = TurnState.of(request);
		long started = System.nanoTime();
		return AGGREGATOR.aggregateChatClientResponse(chunks, (aggregated) -> {
			AssistantMessage output = ChatResponses.output(aggregated.chatResponse());
			state.caller()
				.run(() -> this.hooks.observe(HookPoint.MODEL_RESPONSE,
						new ModelResponsePayload((output != null) ? output.getText() : null,
								ChatResponses.toolCalls(output), (System.nanoTime() - started) / 1_000_000,
								state.senderId(), state.call(), state.channel())));
		});
	}

	/**
	 * The whole completion of a stream as one response, without blocking.
	 */
	static Mono<ChatClientResponse> aggregate(Flux<ChatClientResponse> chunks) {
		AtomicReference<ChatClientResponse> aggregated = new AtomicReference<>();
		return AGGREGATOR.aggregateChatClientResponse(chunks, aggregated::set).then(Mono.fromSupplier(aggregated::get));
	}

	/**
	 * Either the request to send to the provider or the reply that replaces the call.
	 */
	private record Prepared(ChatClientRequest request, @Nullable ChatClientResponse reply) {

		static Prepared send(ChatClientRequest request) {
			return new Prepared(request, null);
		}

		static Prepared reply(ChatClientRequest request, ChatClientResponse reply) {
			return new Prepared(request, reply);
		}

	}

	private record ResponseDecision(ChatClientResponse response, @Nullable RetryModel retry) {
	}

}
