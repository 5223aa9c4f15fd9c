package io.mantlehooks.ai.chat;

import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.chat.ModelCallStage.Prepared;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;

/**
 * The last advisor before the provider: runs the model-request hooks on the final prompt
 * of each model call (after RAG and logging advisors changed it) and the model-response
 * hooks on what the provider returned. It makes one model call per request and reports
 * upward, in the response context, when a hook asked for another try or failed closed;
 * the tool loop decides what happens next.
 */
final class MantleModelCallAdvisor implements CallAdvisor, StreamAdvisor {

	/** {@link MantleHooks#MODEL_CALL_ADVISOR_ORDER}. */
	static final int ORDER = MantleHooks.MODEL_CALL_ADVISOR_ORDER;

	private final ModelCallStage stage;

	MantleModelCallAdvisor(ModelCallStage stage) {
		this.stage = stage;
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
		Turn turn = TurnContexts.turnOf(request);
		Prepared prepared = Steps.join(this.stage.prepare(turn, request));
		if (prepared.reply() != null) {
			return prepared.reply();
		}
		long started = System.nanoTime();
		ChatClientResponse response = chain.nextCall(prepared.request());
		return Steps.join(this.stage.review(turn, response, millisSince(started)));
	}

	/**
	 * The streamed model call: the request hooks, then the rest of the chain (the model),
	 * then the response hooks.
	 */
	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return Flux.defer(() -> {
			Turn turn = TurnContexts.turnOf(request);
			return Steps.mono(this.stage.prepare(turn, request), Steps.ELASTIC)
				.flatMapMany((prepared) -> (prepared.reply() != null) ? Flux.just(prepared.reply())
						: call(turn, prepared.request(), chain));
		});
	}

	private Flux<ChatClientResponse> call(Turn turn, ChatClientRequest request, StreamAdvisorChain chain) {
		return Flux.defer(() -> {
			long started = System.nanoTime();
			Flux<ChatClientResponse> chunks = CurrentTurnPropagation.subscribeWithin(turn, chain.nextStream(request));
			if (this.stage.buffersResponses(turn)) {
				// the response hook must see the whole completion before any of it
				// goes on
				return aggregate(chunks)
					.flatMap((response) -> Steps.mono(this.stage.review(turn, response, millisSince(started)),
							Steps.ELASTIC))
					.flux();
			}
			if (this.stage.observesResponses(turn)) {
				StreamedResponse streamed = new StreamedResponse();
				return chunks.doOnNext(streamed::add)
					.doOnComplete(() -> this.stage.observe(turn, streamed, millisSince(started)));
			}
			return chunks;
		});
	}

	/**
	 * The whole completion of a stream as one response, without blocking.
	 */
	static Mono<ChatClientResponse> aggregate(Flux<ChatClientResponse> chunks) {
		AtomicReference<ChatClientResponse> aggregated = new AtomicReference<>();
		return RoundAggregator.aggregate(chunks, aggregated::set).then(Mono.fromSupplier(aggregated::get));
	}

	private static long millisSince(long started) {
		return (System.nanoTime() - started) / 1_000_000;
	}

}
