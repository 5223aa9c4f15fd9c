package io.mantlehooks.ai.chat;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.mantlehooks.ai.chat.ModelCallStage.Prepared;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.HookWait;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ChatModelCallAdvisor;
import org.springframework.ai.chat.client.advisor.ChatModelStreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.core.Ordered;

/**
 * The last advisor before the provider: runs the model-request hooks on the final prompt
 * of each model call (after RAG and logging advisors changed it) and the model-response
 * hooks on what the provider returned. It makes one model call per request and reports
 * upward, in the response context, when a hook asked for another try or failed closed;
 * the tool loop decides what happens next.
 */
public final class MantleModelCallAdvisor implements CallAdvisor, StreamAdvisor {

	/**
	 * Just inside Spring AI's model advisors, which sit at
	 * {@link Ordered#LOWEST_PRECEDENCE}.
	 */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1;

	private final ModelCallStage stage;

	private final Executor executor;

	private final HookWait wait;

	MantleModelCallAdvisor(ModelCallStage stage, HookRunner hooks) {
		this.stage = stage;
		this.executor = hooks.getExecutor();
		this.wait = hooks.getWait();
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
		Prepared prepared = Steps.join(this.stage.prepare(turn, request), this.wait);
		if (prepared.reply() != null) {
			return prepared.reply();
		}
		long started = System.nanoTime();
		ChatModelCallAdvisor model = NextAdvisor.unobservedNext(chain.getCallAdvisors(), chain.getObservationRegistry(),
				this, ChatModelCallAdvisor.class);
		ChatClientResponse response = (model != null) ? model.adviseCall(prepared.request(), chain)
				: chain.nextCall(prepared.request());
		return Steps.join(this.stage.review(turn, response, millisSince(started)), this.wait);
	}

	/**
	 * Return whether a {@code .call()} through this advisor with the given chain reaches
	 * Spring AI's model advisor without a hop, so that the tool loop may call this
	 * advisor directly with the chain it was given, which is then never advanced.
	 * @param chain a chain that holds this advisor
	 * @return whether the model advisor comes next and nothing observes the hop into it
	 */
	boolean callsModelDirectly(CallAdvisorChain chain) {
		return NextAdvisor.unobservedNext(chain.getCallAdvisors(), chain.getObservationRegistry(), this,
				ChatModelCallAdvisor.class) != null;
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		Flux<ChatClientResponse> direct = straightToModel(request, chain);
		return (direct != null) ? direct
				: stream(request, chain::nextStream, NextAdvisor.isModelNext(chain.getStreamAdvisors(), this));
	}

	/**
	 * Run one streamed model call as the tool loop's direct call ({@link NextAdvisor}):
	 * straight into Spring AI's model advisor when nothing observes the hop into it, else
	 * through a copy of the loop's chain that starts after this advisor.
	 * @param request the request
	 * @param loopChain the chain the tool loop was given, which holds this advisor; it is
	 * copied when needed, never advanced
	 * @return the model call's chunks
	 */
	Flux<ChatClientResponse> adviseStreamDirectly(ChatClientRequest request, StreamAdvisorChain loopChain) {
		Flux<ChatClientResponse> direct = straightToModel(request, loopChain);
		return (direct != null) ? direct : adviseStream(request, loopChain.copy(this));
	}

	/**
	 * The streamed model call straight into Spring AI's model advisor, when it comes
	 * right after this advisor in the chain and nothing observes the hop into it;
	 * {@code null} otherwise.
	 */
	private @Nullable Flux<ChatClientResponse> straightToModel(ChatClientRequest request, StreamAdvisorChain chain) {
		ChatModelStreamAdvisor model = NextAdvisor.unobservedNext(chain.getStreamAdvisors(),
				chain.getObservationRegistry(), this, ChatModelStreamAdvisor.class);
		return (model != null) ? stream(request, (sent) -> model.adviseStream(sent, chain), true) : null;
	}

	/**
	 * The streamed model call: the request hooks, then the model (through {@code next}),
	 * then the response hooks.
	 * @param modelNext whether {@code next} is Spring AI's model advisor, which gets only
	 * the application's context
	 */
	private Flux<ChatClientResponse> stream(ChatClientRequest request,
			Function<ChatClientRequest, Flux<ChatClientResponse>> next, boolean modelNext) {
		return Flux.defer(() -> {
			Turn turn = TurnContexts.turnOf(request);
			return Steps.mono(this.stage.prepare(turn, request), this.executor)
				.flatMapMany((prepared) -> (prepared.reply() != null) ? Flux.just(prepared.reply())
						: call(turn, prepared.request(), next, modelNext));
		});
	}

	private Flux<ChatClientResponse> call(Turn turn, ChatClientRequest request,
			Function<ChatClientRequest, Flux<ChatClientResponse>> next, boolean modelNext) {
		return Flux.defer(() -> {
			long started = System.nanoTime();
			ChatClientRequest sent = modelNext ? TurnContexts.toModel(request) : request;
			Flux<ChatClientResponse> chunks = CurrentTurnPropagation.subscribeWithin(turn, next.apply(sent));
			if (this.stage.buffersResponses(turn)) {
				// the response hook must see the whole completion before any of it
				// goes on
				return aggregate(chunks)
					.flatMap((response) -> Steps.mono(this.stage.review(turn, response, millisSince(started)),
							this.executor))
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
