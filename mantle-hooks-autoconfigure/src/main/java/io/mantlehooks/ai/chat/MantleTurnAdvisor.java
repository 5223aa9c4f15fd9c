package io.mantlehooks.ai.chat;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.ai.chat.IncomingMessageStage.Start;
import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.ai.turn.TurnCancelledException;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.execution.HookRunner;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;

/**
 * The outermost hook advisor, owner of the turn: it creates the turn's identity and
 * passes it down the chain, runs the incoming-message hooks before anything else (so chat
 * memory stores the rewrite), answers a rejected message without calling the model (and
 * without touching memory), fires turn started/finished as a pair, and hands the caller a
 * response whose context holds {@code mantle.turn_id} and, when hooks decided one,
 * {@code mantle.outcome} and {@code mantle.reason}.
 * <p>
 * A {@code ChatClient} call made while another turn runs on the thread (a RAG query
 * transformer, a sub-agent inside a tool) is nested: it keeps the enclosing turn's
 * identity and runs no incoming-message, turn or outgoing-text hooks of its own; so is a
 * call made from inside one of the turn's hooks (an LLM judge), which also does not run
 * that hook again.
 * <p>
 * What happens at the turn's edges is decided once, in {@link TurnRun}; the two methods
 * here only drive it, blocking for {@code .call()} and as Reactor signals for
 * {@code .stream()}.
 */
final class MantleTurnAdvisor implements CallAdvisor, StreamAdvisor {

	/** {@link MantleHooks#TURN_ADVISOR_ORDER}. */
	static final int ORDER = MantleHooks.TURN_ADVISOR_ORDER;

	private final TurnRun.Edge edge;

	MantleTurnAdvisor(HookRunner hooks, IncomingMessageStage incoming, TurnObservations observations,
			ApprovalStage approvals, TranscriptRecorder transcript) {
		this.edge = new TurnRun.Edge(hooks, incoming, approvals, transcript, observations);
	}

	@Override
	public String getName() {
		return "mantleTurn";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		if (Turn.of(request) != null) {
			return chain.nextCall(request);
		}
		Turn enclosing = CurrentTurn.get();
		if (enclosing != null) {
			Turn nested = enclosing.nested(request.context());
			ChatClientRequest entered = ToolAdvisorTakeOver.mark(TurnContexts.enter(request, nested),
					chain.getCallAdvisors());
			return TurnContexts.leave(chain.nextCall(entered), nested, null);
		}
		TurnRun run = TurnRun.begin(this.edge, request, CallerContext.capture(), null);
		Observation observation = run.observation();
		if (observation == null) {
			return call(run, request, chain);
		}
		try (Observation.Scope scope = observation.openScope()) {
			return call(run, request, chain);
		}
	}

	private ChatClientResponse call(TurnRun run, ChatClientRequest request, CallAdvisorChain chain) {
		Start start;
		try {
			start = Steps.join(run.start(request));
		}
		catch (TurnCancelledException ex) {
			return cancelled(run, request);
		}
		catch (RuntimeException | Error ex) {
			run.failed(ex);
			run.end(TurnStatus.ERROR);
			throw ex;
		}
		ChatClientResponse reply = run.endedAtStart(start);
		if (reply != null) {
			run.recordEndedAtStart();
			run.end(TurnStatus.COMPLETED);
			return reply;
		}
		run.enterChain(start);
		run.recordUser();
		ChatClientResponse response;
		try (CurrentTurn.Scope scope = CurrentTurn.open(run.turn())) {
			response = chain.nextCall(ToolAdvisorTakeOver.mark(start.request(), chain.getCallAdvisors()));
		}
		catch (TurnCancelledException ex) {
			return cancelled(run, request);
		}
		catch (RuntimeException | Error ex) {
			if (interrupted(ex)) {
				// the provider call gave up because the caller's thread was interrupted
				Thread.currentThread().interrupt();
				return cancelled(run, request);
			}
			run.failed(ex);
			run.end(TurnStatus.ERROR);
			throw ex;
		}
		ChatClientResponse left = run.leave(response);
		run.recordReply(false);
		run.end(TurnStatus.COMPLETED);
		return left;
	}

	private static ChatClientResponse cancelled(TurnRun run, ChatClientRequest request) {
		ChatClientResponse cancelled = run.cancelled(request);
		run.recordReply(true);
		run.end(TurnStatus.CANCELLED);
		return cancelled;
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		if (Turn.of(request) != null) {
			return chain.nextStream(request);
		}
		return Flux.deferContextual((reactorContext) -> {
			Turn enclosing = CurrentTurn.get();
			if (enclosing == null && reactorContext.getOrDefault(CurrentTurn.KEY, null) instanceof Turn outer) {
				enclosing = outer;
			}
			if (enclosing != null) {
				Turn nested = enclosing.nested(request.context());
				TurnContexts.Chunks chunks = new TurnContexts.Chunks(nested);
				return TurnBoundAdvisor.bind(chain, this)
					.nextStream(
							ToolAdvisorTakeOver.mark(TurnContexts.enter(request, nested), chain.getStreamAdvisors()))
					.map(chunks::leave)
					.contextWrite((context) -> CurrentTurnPropagation.contextWrite(context, nested));
			}
			TurnRun run = TurnRun.begin(this.edge, request, CallerContext.capture(reactorContext),
					reactorContext.getOrDefault(ObservationThreadLocalAccessor.KEY, null));
			Flux<ChatClientResponse> turn = Steps.mono(run.start(request), Steps.ELASTIC)
				.flatMapMany((start) -> stream(run, start, chain))
				// the turn ends before the caller sees the stream end, so its finished
				// observers have started by then, as in .call()
				.doOnComplete(() -> run.end(TurnStatus.COMPLETED))
				.doOnError((ex) -> {
					run.failed(ex);
					run.end(TurnStatus.ERROR);
				})
				.doOnCancel(() -> run.end(TurnStatus.CANCELLED));
			Observation observation = run.observation();
			if (observation != null) {
				// the observation is current for everything the chain does below
				turn = turn.contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, observation));
			}
			return turn.contextWrite((context) -> CurrentTurnPropagation.contextWrite(context, run.turn()));
		});
	}

	/**
	 * The streamed turn after its start: the reply it ended with, or the chain's chunks;
	 * with the transcript written on Reactor's bounded-elastic scheduler, and kept when
	 * the caller cancels.
	 */
	private Flux<ChatClientResponse> stream(TurnRun run, Start start, StreamAdvisorChain chain) {
		ChatClientResponse reply = run.endedAtStart(start);
		if (reply != null) {
			if (!run.records()) {
				return Flux.just(reply);
			}
			return write(run::recordEndedAtStart).thenMany(Flux.just(reply))
				.doOnCancel(() -> Steps.ELASTIC.execute(run::recordEndedAtStart));
		}
		ChatClientRequest request = start.request();
		if (request == null || !run.enterChain(start)) {
			return Flux.empty();
		}
		Flux<ChatClientResponse> chunks = CurrentTurnPropagation
			.subscribeWithin(run.turn(),
					TurnBoundAdvisor.bind(chain, this, run.retracts())
						.nextStream(ToolAdvisorTakeOver.mark(request, chain.getStreamAdvisors())))
			.map(run::leave);
		if (!run.records()) {
			return chunks;
		}
		return write(run::recordUser).thenMany(chunks)
			.concatWith(write(() -> run.recordReply(false)).then(Mono.empty()))
			.doOnCancel(() -> Steps.ELASTIC.execute(() -> run.recordReply(true)));
	}

	/**
	 * A transcript write, which may block (a database): on Reactor's bounded-elastic
	 * scheduler, never on the thread that emits the stream.
	 */
	private static Mono<Void> write(Runnable write) {
		return Mono.<Void>fromRunnable(write).subscribeOn(Schedulers.boundedElastic());
	}

	private static boolean interrupted(Throwable ex) {
		if (Thread.currentThread().isInterrupted()) {
			return true;
		}
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException
					|| (cause instanceof InterruptedIOException && !(cause instanceof SocketTimeoutException))) {
				return true;
			}
		}
		return false;
	}

}
