package io.mantlehooks.ai;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.mantlehooks.runtime.HookResponses;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientAttributes;
import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.ToolAdvisor;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * The chain's tool advisor (Spring AI allows one; with this one present, the
 * {@code ChatClient} does not add its own {@link ToolCallingAdvisor}). It owns the
 * model-to-tool loop: tools still run through Spring AI's {@link ToolCallingManager} and
 * {@code ToolCallback}s, {@code returnDirect} still works, and each completed reply
 * passes the outgoing-text hooks here, inside chat memory, so memory stores what the user
 * received.
 */
public final class MantleToolLoopAdvisor implements CallAdvisor, StreamAdvisor, ToolAdvisor {

	/** The default order of Spring AI's tool advisor: inside memory, outside RAG. */
	public static final int ORDER = ToolCallingAdvisor.DEFAULT_ORDER;

	private static final ChatClientMessageAggregator AGGREGATOR = new ChatClientMessageAggregator();

	private final ToolStage tools;

	private final HookResponses responses;

	private final OutgoingTextStage outgoing;

	private final MantleModelCallAdvisor modelCall;

	MantleToolLoopAdvisor(ToolStage tools, HookResponses responses, OutgoingTextStage outgoing,
			MantleModelCallAdvisor modelCall) {
		this.tools = tools;
		this.responses = responses;
		this.outgoing = outgoing;
		this.modelCall = modelCall;
	}

	@Override
	public String getName() {
		return "mantleToolLoop";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		TurnState state = TurnState.of(request);
		return reply(state, loop(request, (round) -> chain.copy(this).nextCall(round)));
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		TurnState state = TurnState.of(request);
		if (buffers()) {
			List<Message> instructions = request.prompt().getInstructions();
			return bufferedLoop(request, chain, state, instructions, instructions)
				.flatMap((response) -> Blocking.call(state, () -> reply(state, response)))
				.flux();
		}
		Rounds rounds = new Rounds(request, chain, state);
		return rounds.stream(request.prompt().getInstructions(), request.prompt().getInstructions());
	}

	/**
	 * Whether a hook may still change or drop what the model produced, so nothing can be
	 * streamed before the turn's reply is final.
	 */
	boolean buffers() {
		return this.modelCall.buffersResponses() || this.tools.buffersReplies() || this.outgoing.buffersReplies();
	}

	private ChatClientResponse loop(ChatClientRequest request, Function<ChatClientRequest, ChatClientResponse> next) {
		TurnState state = TurnState.of(request);
		ChatOptions options = request.prompt().getOptions();
		List<Message> instructions = request.prompt().getInstructions();
		List<Message> history = instructions;
		while (true) {
			ChatClientResponse response = next.apply(round(request, instructions, options));
			ChatResponse chatResponse = response.chatResponse();
			if (!runsTools(request) || !ChatResponses.hasToolCalls(chatResponse)) {
				return response;
			}
			ToolStage.Step step = this.tools.run(state, history, (ToolCallingChatOptions) options, chatResponse);
			if (step instanceof ToolStage.Step.Next advance) {
				history = advance.history();
				instructions = history;
			}
			else if (step instanceof ToolStage.Step.Retry retry) {
				// the batch and its text are discarded; the same prompt goes out again
				state.retryWith(retry.feedback());
			}
			else {
				return ending(request, response, step);
			}
		}
	}

	private ChatClientResponse toolCallHookError(ChatClientRequest request) {
		return ChatResponses.textResponse(request, this.responses.resolve(null, HookResponses.TOOL_CALL_HOOK_ERROR));
	}

	private static ChatClientRequest round(ChatClientRequest request, List<Message> instructions,
			@Nullable ChatOptions options) {
		Prompt prompt = (options != null) ? new Prompt(instructions, options) : new Prompt(instructions);
		return ChatClientRequest.builder().prompt(prompt).context(request.context()).build();
	}

	/**
	 * Tools run when the options carry tool callbacks, unless the app turned Spring AI's
	 * tool calling off for this request.
	 */
	private static boolean runsTools(ChatClientRequest request) {
		return request.prompt().getOptions() instanceof ToolCallingChatOptions && !Boolean.FALSE
			.equals(request.context().get(ChatClientAttributes.TOOL_CALLING_ADVISOR_AUTO_REGISTER.getKey()));
	}

	/**
	 * The reply of a batch that ends the loop: the tool results themselves
	 * ({@code returnDirect}), Spring AI's tool-call limit reply, or the tool-call error
	 * reply when preflight failed closed.
	 */
	private ChatClientResponse ending(ChatClientRequest request, ChatClientResponse response, ToolStage.Step step) {
		if (step instanceof ToolStage.Step.Direct direct) {
			return ChatResponses.withGenerations(response, ToolExecutionResult.buildGenerations(direct.result()));
		}
		if (step instanceof ToolStage.Step.Limit limit) {
			return ChatResponses.withGenerations(response, List.of(limit.generation()));
		}
		return toolCallHookError(request);
	}

	/**
	 * The buffered streaming loop: each round's completion is aggregated (without
	 * blocking), then handled like a call-path round.
	 */
	private Mono<ChatClientResponse> bufferedLoop(ChatClientRequest request, StreamAdvisorChain chain, TurnState state,
			List<Message> instructions, List<Message> history) {
		ChatOptions options = request.prompt().getOptions();
		return MantleModelCallAdvisor
			.aggregate(CurrentTurnPropagation.subscribeWithin(state,
					chain.copy(this).nextStream(round(request, instructions, options))))
			.flatMap((response) -> {
				if (!runsTools(request) || !ChatResponses.hasToolCalls(response.chatResponse())) {
					return Mono.just(response);
				}
				return Blocking
					.call(state,
							() -> this.tools.run(state, history, (ToolCallingChatOptions) options,
									response.chatResponse()))
					.flatMap((step) -> {
						if (step instanceof ToolStage.Step.Next advance) {
							return bufferedLoop(request, chain, state, advance.history(), advance.history());
						}
						if (step instanceof ToolStage.Step.Retry retry) {
							state.retryWith(retry.feedback());
							return bufferedLoop(request, chain, state, instructions, history);
						}
						return Mono.just(ending(request, response, step));
					});
			});
	}

	/**
	 * The turn's reply passes the outgoing-text hooks once it is complete; a reply the
	 * hooks dropped leaves a response with no generation, so nothing is sent or stored.
	 */
	private ChatClientResponse reply(TurnState state, ChatClientResponse response) {
		if (ChatResponses.hasToolCalls(response.chatResponse())) {
			return response;
		}
		String text = ChatResponses.text(response.chatResponse());
		if (text == null) {
			return response;
		}
		String processed = this.outgoing.process(state, text);
		if (processed == null) {
			return ChatResponses.withoutGenerations(response);
		}
		return processed.equals(text) ? response : ChatResponses.withText(response, processed);
	}

	/**
	 * The live streaming loop, used when only observers are registered: text chunks reach
	 * the caller as they arrive, tool-call chunks do not, tools run between rounds, and
	 * the outgoing-text observers see the completed text at the end.
	 */
	private final class Rounds {

		private final ChatClientRequest request;

		private final StreamAdvisorChain chain;

		private final TurnState state;

		private final StringBuilder streamed = new StringBuilder();

		Rounds(ChatClientRequest request, StreamAdvisorChain chain, TurnState state) {
			this.request = request;
			this.chain = chain;
			this.state = state;
		}

		Flux<ChatClientResponse> stream(List<Message> instructions, List<Message> history) {
			ChatOptions options = this.request.prompt().getOptions();
			AtomicReference<ChatClientResponse> aggregated = new AtomicReference<>();
			Flux<ChatClientResponse> chunks = AGGREGATOR.aggregateChatClientResponse(
					CurrentTurnPropagation.subscribeWithin(this.state, this.chain.copy(MantleToolLoopAdvisor.this)
						.nextStream(round(this.request, instructions, options))),
					aggregated::set);
			return chunks.filter((chunk) -> !ChatResponses.hasToolCalls(chunk.chatResponse()))
				.doOnNext(this::record)
				.concatWith(Flux.defer(() -> next(aggregated.get(), instructions, history, options)));
		}

		private Flux<ChatClientResponse> next(@Nullable ChatClientResponse response, List<Message> instructions,
				List<Message> history, @Nullable ChatOptions options) {
			if (response == null || !runsTools(this.request) || !ChatResponses.hasToolCalls(response.chatResponse())) {
				observeStreamed();
				return Flux.empty();
			}
			return Blocking
				.call(this.state,
						() -> MantleToolLoopAdvisor.this.tools.run(this.state, history,
								(ToolCallingChatOptions) options, response.chatResponse()))
				.flatMapMany((step) -> {
					if (step instanceof ToolStage.Step.Next advance) {
						return stream(advance.history(), advance.history());
					}
					if (step instanceof ToolStage.Step.Retry retry) {
						this.state.retryWith(retry.feedback());
						return stream(instructions, history);
					}
					ChatClientResponse reply = ending(this.request, response, step);
					record(reply);
					observeStreamed();
					return Flux.just(reply);
				});
		}

		private void observeStreamed() {
			this.state.caller()
				.run(() -> MantleToolLoopAdvisor.this.outgoing.observeStreamed(this.state, this.streamed.toString()));
		}

		private void record(ChatClientResponse chunk) {
			String text = ChatResponses.text(chunk.chatResponse());
			if (text != null) {
				this.streamed.append(text);
			}
		}

	}

}
