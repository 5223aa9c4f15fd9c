package io.mantlehooks.ai.chat;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.ai.chat.TurnLoop.Decision;
import io.mantlehooks.ai.chat.TurnLoop.State;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.ToolAdvisor;
import org.springframework.ai.model.tool.ToolCallingManager;

/**
 * The chain's tool advisor (Spring AI allows one; with this one present, the
 * {@code ChatClient} does not add its own {@link ToolCallingAdvisor}). It drives the
 * rounds of {@link TurnLoop}: {@code .call()} makes each model call and applies the
 * round's decision; {@code .stream()} does the same without blocking, and when no hook
 * may change the reply it streams the model's text live. Tools still run through Spring
 * AI's {@link ToolCallingManager} and {@code ToolCallback}s.
 */
public final class MantleToolLoopAdvisor implements CallAdvisor, StreamAdvisor, ToolAdvisor {

	/** The default order of Spring AI's tool advisor: inside memory, outside RAG. */
	public static final int ORDER = ToolCallingAdvisor.DEFAULT_ORDER;

	private static final ChatClientMessageAggregator AGGREGATOR = new ChatClientMessageAggregator();

	private final TurnLoop loop;

	private final Executor executor;

	MantleToolLoopAdvisor(TurnLoop loop, Executor executor) {
		this.loop = loop;
		this.executor = executor;
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
		State state = new State(TurnContexts.turnOf(request), request, false, false);
		Round round = Round.first(request);
		Resume resume = Resume.of(request);
		if (resume != null) {
			// an approved or declined batch: its tools run (or not) before the next
			// model call
			Decision resumed = Steps.join(this.loop.resume(state, resume));
			if (resumed.next() == null) {
				return resumed.response();
			}
			round = resumed.next();
		}
		CallAdvisorChain next = chain;
		while (true) {
			ChatClientResponse response = next.nextCall(round.request(request));
			state.roundDone(response.chatResponse());
			Decision decision = Steps.join(this.loop.next(state, round, response));
			if (decision.next() == null) {
				return state.withTurnUsage(decision.response());
			}
			round = decision.next();
			// the chain is spent once called; later rounds go through a fresh copy
			next = chain.copy(this);
		}
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return Flux.defer(() -> {
			boolean live = !this.loop.buffers();
			State state = new State(TurnContexts.turnOf(request), request, live, true);
			Resume resume = Resume.of(request);
			if (resume == null) {
				return round(state, Round.first(request), chain, chain);
			}
			return Steps.mono(this.loop.resume(state, resume), this.executor)
				.flatMapMany((decision) -> (decision.next() != null) ? round(state, decision.next(), chain, chain)
						: Flux.just(decision.response()));
		});
	}

	/**
	 * One streamed round: the model's chunks (emitted when live, else only aggregated),
	 * then the round's decision: another round, or the final reply.
	 */
	private Flux<ChatClientResponse> round(State state, Round round, StreamAdvisorChain chain,
			StreamAdvisorChain next) {
		AtomicReference<ChatClientResponse> aggregated = new AtomicReference<>();
		Flux<ChatClientResponse> chunks = AGGREGATOR
			// subscribed with the turn current, so the tasks the round schedules carry it
			.aggregateChatClientResponse(CurrentTurnPropagation.subscribeWithin(state.turn(),
					next.nextStream(round.request(state.request()))), aggregated::set);
		Flux<ChatClientResponse> emitted = state.live()
				? chunks.filter(TurnStreams::hasText)
					.doOnNext((chunk) -> state.streamed(ChatResponses.text(chunk.chatResponse())))
					.map((chunk) -> state.withTurnUsageSoFar(TurnStreams.withReportedOutcome(chunk)))
				: chunks.ignoreElements().flux();
		return emitted.concatWith(Flux.defer(() -> {
			ChatClientResponse response = aggregated.get();
			if (response == null) {
				return Flux.empty();
			}
			state.roundDone(response.chatResponse());
			return Steps.mono(this.loop.next(state, round, response), this.executor).flatMapMany((decision) -> {
				if (decision.next() != null) {
					return round(state, decision.next(), chain, chain.copy(this));
				}
				return decision.emit() ? Flux.just(state.withTurnUsage(decision.response())) : Flux.empty();
			});
		}));
	}

}
