package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.mantlehooks.ai.chat.TurnLoop.Decision;
import io.mantlehooks.ai.chat.TurnLoop.State;
import io.mantlehooks.ai.chat.TurnLoop.Streaming;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.HookWait;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.ToolAdvisor;
import org.springframework.ai.chat.model.ChatResponse;
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

	private final TurnLoop loop;

	private final Executor executor;

	private final HookWait wait;

	MantleToolLoopAdvisor(TurnLoop loop, HookRunner hooks) {
		this.loop = loop;
		this.executor = hooks.getExecutor();
		this.wait = hooks.getWait();
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
		return call(request, chain, true);
	}

	/**
	 * Run the loop as the turn advisor's direct {@code .call()}: only when
	 * {@link #reachesModelDirectly} holds for the chain.
	 * @param request the request
	 * @param chain a chain that holds this advisor; it is copied when needed, never
	 * advanced
	 * @return the turn's response
	 */
	ChatClientResponse adviseCallDirectly(ChatClientRequest request, CallAdvisorChain chain) {
		return call(request, chain, false);
	}

	/**
	 * Return whether a {@code .call()} through this advisor reaches Spring AI's model
	 * advisor without a hop: the model-call advisor comes next, and after it Spring AI's,
	 * and nothing observes the hops (see {@link NextAdvisor#unobservedNext}).
	 * @param chain a chain that holds this advisor
	 * @return whether the whole way to the model goes without a hop
	 */
	boolean reachesModelDirectly(CallAdvisorChain chain) {
		return modelCallOf(chain) != null;
	}

	private @Nullable MantleModelCallAdvisor modelCallOf(CallAdvisorChain chain) {
		MantleModelCallAdvisor modelCall = NextAdvisor.unobservedNext(chain.getCallAdvisors(),
				chain.getObservationRegistry(), this, MantleModelCallAdvisor.class);
		return (modelCall != null && modelCall.callsModelDirectly(chain)) ? modelCall : null;
	}

	private ChatClientResponse call(ChatClientRequest request, CallAdvisorChain chain, boolean unspent) {
		State state = new State(TurnContexts.turnOf(request), request, Streaming.BUFFERED);
		Round round = Round.first(request);
		Resume resume = Resume.of(request);
		if (resume != null) {
			// an approved or declined batch: its tools run (or not) before the next
			// model call
			Decision resumed = Steps.join(this.loop.resume(state, resume), this.wait);
			if (resumed.next() == null) {
				return resumed.response();
			}
			round = resumed.next();
		}
		// a direct call only when the whole way to the model goes without a hop
		// (NextAdvisor): else reaching the next advisor directly takes a copy of the
		// chain, which costs a .call() more than the hops it saves
		MantleModelCallAdvisor modelCall = modelCallOf(chain);
		CallAdvisorChain unspentChain = unspent ? chain : null;
		while (true) {
			ChatClientRequest roundRequest = round.request(request);
			ChatClientResponse response;
			if (modelCall != null) {
				// straight on to the model, which only reads the chain
				response = modelCall.adviseCall(roundRequest, chain);
			}
			else {
				// the chain is spent once called; later rounds go through a fresh copy
				CallAdvisorChain next = (unspentChain != null) ? unspentChain : chain.copy(this);
				unspentChain = null;
				response = next.nextCall(roundRequest);
			}
			state.roundDone(response.chatResponse());
			Decision decision = Steps.join(this.loop.next(state, round, response), this.wait);
			if (decision.next() == null) {
				return state.withTurnUsage(decision.response());
			}
			round = decision.next();
		}
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return stream(request, chain, true);
	}

	/**
	 * Run the loop as the turn advisor's direct call ({@link NextAdvisor}).
	 * @param request the request
	 * @param chain a chain that holds this advisor; it is copied, never advanced
	 * @return the turn's stream
	 */
	Flux<ChatClientResponse> adviseStreamDirectly(ChatClientRequest request, StreamAdvisorChain chain) {
		return stream(request, chain, false);
	}

	private Flux<ChatClientResponse> stream(ChatClientRequest request, StreamAdvisorChain chain, boolean unspent) {
		return Flux.defer(() -> {
			Turn turn = TurnContexts.turnOf(request);
			State state = new State(turn, request, this.loop.streaming(turn));
			state.segments(this.loop.segments(state, this.executor));
			Resume resume = Resume.of(request);
			if (resume == null) {
				return round(state, Round.first(request), chain, unspent);
			}
			return Steps.mono(this.loop.resume(state, resume), this.executor)
				.flatMapMany((decision) -> (decision.next() != null) ? round(state, decision.next(), chain, unspent)
						: Flux.just(decision.response()));
		});
	}

	/**
	 * One streamed model call: straight into the model-call advisor when it comes next,
	 * else through the chain, which is spent once called (later rounds take a fresh
	 * copy).
	 */
	private Flux<ChatClientResponse> modelStream(StreamAdvisorChain chain, boolean unspent, ChatClientRequest request) {
		MantleModelCallAdvisor modelCall = NextAdvisor.after(chain.getStreamAdvisors(), this,
				MantleModelCallAdvisor.class);
		if (modelCall != null) {
			return modelCall.adviseStreamDirectly(request, chain);
		}
		return (unspent ? chain : chain.copy(this)).nextStream(request);
	}

	/**
	 * One streamed round: the model's chunks (emitted as they come when live, sentence by
	 * sentence when an outgoing-text hook cuts them, else only aggregated), then the
	 * round's decision: another round, or the final reply.
	 */
	private Flux<ChatClientResponse> round(State state, Round round, StreamAdvisorChain chain, boolean unspent) {
		AtomicReference<ChatClientResponse> aggregated = new AtomicReference<>();
		Flux<ChatClientResponse> chunks = RoundAggregator
			// subscribed with the turn current, so the tasks the round schedules carry it
			.aggregate(CurrentTurnPropagation.subscribeWithin(state.turn(),
					modelStream(chain, unspent, round.request(state.request()))), aggregated::set)
			.filter(TurnStreams::hasText)
			.map(TurnStreams::withReportedOutcome);
		SegmentedReply segments = state.segments();
		List<ChatClientResponse> held = (segments != null && this.loop.holdsToolRounds(state))
				? Collections.synchronizedList(new ArrayList<>()) : null;
		Flux<ChatClientResponse> emitted;
		if (held != null) {
			// held until the round ends: whether it calls tools is only known then
			emitted = chunks.doOnNext(held::add).ignoreElements().flux();
		}
		else if (segments != null) {
			emitted = segmented(state, segments, chunks,
					() -> !ChatResponses.hasToolCalls(chatResponse(aggregated.get())));
		}
		else if (state.live()) {
			emitted = chunks.doOnNext((chunk) -> state.streamed(ChatResponses.text(chunk.chatResponse())))
				.map(state::withTurnUsageSoFar);
		}
		else {
			emitted = chunks.ignoreElements().flux();
		}
		return emitted.concatWith(Flux.defer(() -> {
			ChatClientResponse response = aggregated.get();
			if (segments != null && segments.rejection() != null) {
				return retracted(state, segments);
			}
			if (response == null) {
				return Flux.empty();
			}
			state.roundDone(response.chatResponse());
			if (held != null && !ChatResponses.hasToolCalls(response.chatResponse())) {
				// no tool calls: the round ends the reply, and its text goes out now
				return segmented(state, segments, Flux.fromIterable(held), () -> true)
					.concatWith(unlessRetracted(state, segments, () -> decide(state, round, response, chain, null)));
			}
			return decide(state, round, response, chain, held);
		}));
	}

	/**
	 * The round's decision: the next round (after the text a tool round held, when its
	 * batch ran), or the final reply when it still has to reach the caller.
	 */
	private Flux<ChatClientResponse> decide(State state, Round round, ChatClientResponse response,
			StreamAdvisorChain chain, @Nullable List<ChatClientResponse> held) {
		return Steps.mono(this.loop.next(state, round, response), this.executor).flatMapMany((decision) -> {
			Round following = decision.next();
			if (following == null) {
				return decision.emit() ? Flux.just(state.withTurnUsage(decision.response())) : Flux.empty();
			}
			SegmentedReply segments = state.segments();
			if (segments == null || held == null || held.isEmpty() || following.feedback() != null) {
				// a retried batch is discarded with the text that came with it
				return round(state, following, chain, false);
			}
			return segmented(state, segments, Flux.fromIterable(held), () -> false)
				.concatWith(unlessRetracted(state, segments, () -> round(state, following, chain, false)));
		});
	}

	/**
	 * A round's text as the user receives it, sentence by sentence through the hook.
	 */
	private static Flux<ChatClientResponse> segmented(State state, SegmentedReply segments,
			Flux<ChatClientResponse> chunks, BooleanSupplier ends) {
		return segments.round(chunks, ends).map((chunk) -> {
			if (SegmentedReply.isRetraction(chunk)) {
				return chunk;
			}
			state.streamed(ChatResponses.text(chunk.chatResponse()));
			return state.withTurnUsageSoFar(chunk);
		});
	}

	/**
	 * What follows segments that a rejection may have ended: nothing more once it did.
	 */
	private Flux<ChatClientResponse> unlessRetracted(State state, SegmentedReply segments,
			Supplier<Flux<ChatClientResponse>> next) {
		return Flux.defer(() -> (segments.rejection() != null) ? retracted(state, segments) : next.get());
	}

	/**
	 * A segment was rejected and its retraction went out: the turn's reply is final.
	 */
	private Flux<ChatClientResponse> retracted(State state, SegmentedReply segments) {
		OutgoingTextStage.Reply rejection = segments.rejection();
		if (rejection != null) {
			this.loop.retracted(state, rejection);
		}
		return Flux.empty();
	}

	private static @Nullable ChatResponse chatResponse(@Nullable ChatClientResponse response) {
		return (response != null) ? response.chatResponse() : null;
	}

}
