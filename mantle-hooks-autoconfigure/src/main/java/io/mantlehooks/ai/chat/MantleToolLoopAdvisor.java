package io.mantlehooks.ai.chat;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.chat.ToolAdvisorTakeOver.Tools;
import io.mantlehooks.ai.chat.TurnLoop.Decision;
import io.mantlehooks.ai.chat.TurnLoop.State;
import io.mantlehooks.ai.chat.TurnLoop.Streaming;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.model.tool.ToolCallingManager;

/**
 * The tool loop of a hooked turn. It drives the rounds of {@link TurnLoop}:
 * {@code .call()} makes each model call through a copy of the rest of the chain and
 * applies the round's decision; {@code .stream()} does the same without blocking, and
 * when no hook may change the reply it streams the model's text live. Tools run through
 * Spring AI's {@link ToolCallingManager} and {@code ToolCallback}s; the chain's own
 * {@link ToolCallingAdvisor} (the one the {@code ChatClient} adds, or the application's)
 * is taken over: its manager runs the tools and it stays out of the model calls
 * ({@link ToolAdvisorTakeOver}).
 */
final class MantleToolLoopAdvisor implements CallAdvisor, StreamAdvisor {

	/** {@link MantleHooks#TOOL_LOOP_ADVISOR_ORDER}. */
	static final int ORDER = MantleHooks.TOOL_LOOP_ADVISOR_ORDER;

	private final TurnLoop loop;

	private final ToolAdvisorTakeOver takeOver;

	MantleToolLoopAdvisor(TurnLoop loop, ToolAdvisorTakeOver takeOver) {
		this.loop = loop;
		this.takeOver = takeOver;
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
		Tools tools = this.takeOver.of(request, chain.getCallAdvisors(), this);
		State state = new State(TurnContexts.turnOf(request), request, Streaming.BUFFERED, tools.manager());
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
		while (true) {
			// each round goes through the rest of the chain again, as Spring AI's own
			// tool advisor does: a chain is spent once called
			ChatClientResponse response = tools.roundChain(chain, this).nextCall(round.request(request));
			state.roundDone(response.chatResponse());
			Decision decision = Steps.join(this.loop.next(state, round, response));
			if (decision.next() == null) {
				return state.withTurnUsage(decision.response());
			}
			round = decision.next();
		}
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return Flux.defer(() -> {
			Turn turn = TurnContexts.turnOf(request);
			Tools tools = this.takeOver.of(request, chain.getStreamAdvisors(), this);
			State state = new State(turn, request, this.loop.streaming(turn), tools.manager());
			state.segments(this.loop.segments(state, Steps.ELASTIC));
			ModelCalls calls = new ModelCalls(chain, tools, this);
			Resume resume = Resume.of(request);
			if (resume == null) {
				return round(state, Round.first(request), calls);
			}
			return Steps.mono(this.loop.resume(state, resume), Steps.ELASTIC)
				.flatMapMany((decision) -> (decision.next() != null) ? round(state, decision.next(), calls)
						: Flux.just(decision.response()));
		});
	}

	/**
	 * One streamed round: the model's chunks (emitted as they come when live, sentence by
	 * sentence when an outgoing-text hook cuts them, else only aggregated), then the
	 * round's decision: another round, or the final reply. A round of a request that
	 * offers tools, with a tool-call hook, streams its sentences too; when its batch does
	 * not run after all (retried, closed, paused), a retraction takes its text back.
	 */
	private Flux<ChatClientResponse> round(State state, Round round, ModelCalls calls) {
		AtomicReference<ChatClientResponse> aggregated = new AtomicReference<>();
		Flux<ChatClientResponse> chunks = RoundAggregator
			// subscribed with the turn current, so the tasks the round schedules carry it
			.aggregate(CurrentTurnPropagation.subscribeWithin(state.turn(), calls.next(round.request(state.request()))),
					aggregated::set)
			.filter((chunk) -> TurnStreams.reachesCaller(state, chunk))
			.map(TurnStreams::withReportedOutcome);
		SegmentedReply segments = state.segments();
		// what the user had before this round, should preflight discard the round's text
		String keptBefore = (segments != null && this.loop.mayDiscardRoundText(state)) ? state.streamedText() : null;
		Flux<ChatClientResponse> emitted;
		if (segments != null) {
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
			boolean discardable = keptBefore != null && ChatResponses.hasToolCalls(response.chatResponse());
			return decide(state, round, response, calls, discardable ? keptBefore : null);
		}));
	}

	/**
	 * The round's decision: the next round, or the final reply when it still has to reach
	 * the caller. A tool round's streamed text stays only when its batch ran and the loop
	 * goes on; else it is taken back first.
	 * @param keptBefore what the user had before a tool round whose text preflight may
	 * discard, else {@code null}
	 */
	private Flux<ChatClientResponse> decide(State state, Round round, ChatClientResponse response, ModelCalls calls,
			@Nullable String keptBefore) {
		return Steps.mono(this.loop.next(state, round, response), Steps.ELASTIC).flatMapMany((decision) -> {
			Round following = decision.next();
			boolean ran = following != null && following.feedback() == null;
			Flux<ChatClientResponse> taken = (keptBefore != null && !ran) ? takeBack(state, response, keptBefore)
					: Flux.empty();
			if (following == null) {
				return taken
					.concatWith(decision.emit() ? Flux.just(state.withTurnUsage(decision.response())) : Flux.empty());
			}
			// a retried batch is discarded with the text that came with it
			return taken.concatWith(round(state, following, calls));
		});
	}

	/**
	 * Take back what a tool round streamed: a retraction whose text is what the user had
	 * before the round, when the round streamed any.
	 */
	private static Flux<ChatClientResponse> takeBack(State state, ChatClientResponse template, String keptBefore) {
		String streamed = state.streamedText();
		SegmentedReply segments = state.segments();
		if (segments == null || streamed == null || streamed.equals(keptBefore)) {
			return Flux.empty();
		}
		state.replaceStreamed(keptBefore);
		return Flux.just(segments.discarding(template, keptBefore));
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

	/**
	 * The model calls of one streamed turn: each through a fresh copy of the rest of the
	 * chain, without the tool advisor the loop took over.
	 */
	private record ModelCalls(StreamAdvisorChain chain, Tools tools, StreamAdvisor loop) {

		Flux<ChatClientResponse> next(ChatClientRequest request) {
			return this.tools.roundChain(this.chain, this.loop).nextStream(request);
		}

	}

}
