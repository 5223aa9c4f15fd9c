package io.mantlehooks.ai.chat;

import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.TurnStatus;
import io.mantlehooks.ai.chat.IncomingMessageStage.Start;
import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.ai.turn.TurnCancelledException;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.runtime.HookRunner;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import io.mantlehooks.ai.turn.Step;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.core.publisher.SignalType;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.core.Ordered;

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
 * identity and runs no incoming-message, turn or outgoing-text hooks of its own.
 */
public final class MantleTurnAdvisor implements CallAdvisor, StreamAdvisor {

	/** Outside chat memory ({@link Advisor#DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER}). */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	private final HookRunner hooks;

	private final IncomingMessageStage incoming;

	private final Executor executor;

	private final TurnObservations observations;

	private final ApprovalStage approvals;

	private final TranscriptRecorder transcript;

	private final Scheduler writes;

	MantleTurnAdvisor(HookRunner hooks, IncomingMessageStage incoming, TurnObservations observations,
			ApprovalStage approvals, TranscriptRecorder transcript) {
		this.hooks = hooks;
		this.incoming = incoming;
		this.executor = hooks.getExecutor();
		this.observations = observations;
		this.approvals = approvals;
		this.transcript = transcript;
		// transcript writes may block (a database): never on a Reactor thread
		this.writes = Schedulers.fromExecutor(this.executor);
	}

	/**
	 * The start of a turn: the incoming-message hooks, then, for an approval or denial,
	 * the claim of the paused batch.
	 */
	private Step<Start> start(Turn turn, ChatClientRequest request) {
		return this.incoming.start(turn, TurnContexts.enter(request, turn))
			.then((start) -> this.approvals.resume(turn, start));
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
			return nestedCall(request, chain, enclosing.nested());
		}
		Turn started = Turn.start(request.context(), CallerContext.capture());
		Observation observation = this.observations.start(started, null);
		if (observation == null) {
			return call(request, chain, started);
		}
		ChatClientResponse response;
		try (Observation.Scope scope = observation.openScope()) {
			response = call(request, chain, started.observed(observation));
		}
		catch (RuntimeException | Error ex) {
			TurnObservations.stop(observation, TurnObservationContext.ERROR, ex);
			throw ex;
		}
		TurnObservations.stop(observation, response);
		return response;
	}

	private ChatClientResponse call(ChatClientRequest request, CallAdvisorChain chain, Turn turn) {
		Instant startedAt = this.transcript.now();
		Start start;
		try {
			start = Steps.join(start(turn, request));
		}
		catch (TurnCancelledException ex) {
			return cancelled(request, turn);
		}
		if (start.reply() != null) {
			ChatClientResponse reply = TurnContexts.leave(start.reply(), turn, start.outcome());
			recordEnded(turn, start, reply, startedAt);
			return reply;
		}
		this.transcript.user(turn, start.userText(), false, null, startedAt);
		TurnLifecycle lifecycle = new TurnLifecycle(this.hooks, turn);
		lifecycle.start();
		ChatClientResponse response;
		try (CurrentTurn.Scope scope = CurrentTurn.open(turn)) {
			response = chain.nextCall(start.request());
		}
		catch (TurnCancelledException ex) {
			lifecycle.end(TurnStatus.CANCELLED);
			return cancelled(request, turn);
		}
		catch (RuntimeException | Error ex) {
			if (interrupted(ex)) {
				// the provider call gave up because the caller's thread was interrupted
				lifecycle.end(TurnStatus.CANCELLED);
				Thread.currentThread().interrupt();
				return cancelled(request, turn);
			}
			lifecycle.end(TurnStatus.ERROR);
			throw ex;
		}
		lifecycle.end(TurnStatus.COMPLETED);
		ChatClientResponse left = TurnContexts.leave(response, turn, null);
		this.transcript.assistant(turn, text(left), false, outcome(left));
		return left;
	}

	/**
	 * A turn that ended at its start (a rejected message, an approval that found
	 * nothing): the user's message and the reply, both set aside when rejected. The
	 * user's entry carries the outcome only when the message itself was set aside, as in
	 * every other turn: the turn's outcome is on the reply's entry.
	 */
	private void recordEnded(Turn turn, Start start, ChatClientResponse reply, Instant startedAt) {
		String outcome = outcome(reply);
		this.transcript.user(turn, start.userText(), start.discarded(), start.discarded() ? outcome : null, startedAt);
		this.transcript.assistant(turn, text(reply), start.discarded(), outcome);
	}

	private static @Nullable String text(ChatClientResponse response) {
		return (response.chatResponse() != null && response.chatResponse().getResult() != null)
				? ChatResponses.text(response.chatResponse()) : null;
	}

	private static @Nullable String outcome(ChatClientResponse response) {
		Object outcome = response.context().get(io.mantlehooks.MantleHooks.OUTCOME);
		return (outcome != null) ? outcome.toString() : null;
	}

	private static ChatClientResponse nestedCall(ChatClientRequest request, CallAdvisorChain chain, Turn turn) {
		ChatClientResponse response = chain.nextCall(TurnContexts.enter(request, turn));
		return TurnContexts.leave(response, turn, null);
	}

	/**
	 * The response of a turn whose thread was interrupted: nothing is sent.
	 */
	private static ChatClientResponse cancelled(ChatClientRequest request, Turn turn) {
		ChatClientResponse empty = ChatResponses.withoutGenerations(ChatResponses.textResponse(request, ""));
		return TurnContexts.leave(empty, turn, new Outcome(Outcome.CANCELLED, "the caller's thread was interrupted"));
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
				Turn nested = enclosing.nested();
				TurnContexts.Chunks chunks = new TurnContexts.Chunks(nested);
				return chain.nextStream(TurnContexts.enter(request, nested)).map(chunks::leave);
			}
			Turn started = Turn.start(request.context(), CallerContext.capture(reactorContext));
			Observation observation = this.observations.start(started,
					reactorContext.getOrDefault(ObservationThreadLocalAccessor.KEY, null));
			Turn turn = (observation != null) ? started.observed(observation) : started;
			TurnLifecycle lifecycle = new TurnLifecycle(this.hooks, turn);
			Instant startedAt = this.transcript.now();
			Flux<ChatClientResponse> turnStream = Steps.mono(start(turn, request), this.executor)
				.flatMapMany((start) -> recorded(start, stream(start, chain, turn, lifecycle), turn, startedAt))
				.doFinally((signal) -> lifecycle.end(status(signal)));
			if (observation != null) {
				turnStream = observed(turnStream, observation);
			}
			return turnStream.contextWrite((context) -> CurrentTurnPropagation.contextWrite(context, turn));
		});
	}

	/**
	 * Report the streamed turn as its observation: the outcome the last chunk carries,
	 * and the observation current for everything the chain does below.
	 */
	private static Flux<ChatClientResponse> observed(Flux<ChatClientResponse> turnStream, Observation observation) {
		AtomicReference<@Nullable ChatClientResponse> last = new AtomicReference<>();
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		return turnStream.doOnNext(last::set).doOnError(failure::set).doFinally((signal) -> {
			if (signal == SignalType.ON_COMPLETE) {
				TurnObservations.stop(observation, last.get());
			}
			else if (signal == SignalType.CANCEL) {
				TurnObservations.stop(observation, TurnObservationContext.CANCELLED, null);
			}
			else {
				TurnObservations.stop(observation, TurnObservationContext.ERROR, failure.get());
			}
		}).contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, observation));
	}

	/**
	 * The streamed turn with its transcript: the user's message written before the chain
	 * runs, the streamed reply once it is complete (what was streamed when cancelled);
	 * every write on the hook executor, never on a Reactor thread.
	 */
	private Flux<ChatClientResponse> recorded(Start start, Flux<ChatClientResponse> turnStream, Turn turn,
			Instant startedAt) {
		if (!this.transcript.records()) {
			return turnStream;
		}
		ChatClientResponse known = start.reply();
		if (known != null) {
			// the turn ended before the chain (a rejected message or approval): the pair
			// is
			// known, and is kept even when the caller cancels before it arrives
			ChatClientResponse reply = TurnContexts.leave(known, turn, start.outcome());
			AtomicBoolean written = new AtomicBoolean();
			Runnable record = () -> {
				if (written.compareAndSet(false, true)) {
					recordEnded(turn, start, reply, startedAt);
				}
			};
			return Mono.fromRunnable(record)
				.subscribeOn(this.writes)
				.thenMany(turnStream)
				.doOnCancel(() -> this.executor.execute(record));
		}
		StreamedTranscript transcript = new StreamedTranscript(this.transcript, turn, start.userText(), startedAt);
		return Mono.fromRunnable(transcript::user)
			.subscribeOn(this.writes)
			.thenMany(turnStream)
			.doOnNext((chunk) -> transcript.received(text(chunk), outcome(chunk)))
			.concatWith(Mono.<ChatClientResponse>fromRunnable(transcript::completed).subscribeOn(this.writes))
			.doOnCancel(() -> this.executor.execute(transcript::cancelled));
	}

	private static Flux<ChatClientResponse> stream(Start start, StreamAdvisorChain chain, Turn turn,
			TurnLifecycle lifecycle) {
		ChatClientResponse reply = start.reply();
		if (reply != null) {
			return Flux.just(TurnContexts.leave(reply, turn, start.outcome()));
		}
		ChatClientRequest request = start.request();
		if (request == null || !lifecycle.start()) {
			return Flux.empty();
		}
		TurnContexts.Chunks chunks = new TurnContexts.Chunks(turn);
		return CurrentTurnPropagation.subscribeWithin(turn, chain.nextStream(request)).map(chunks::leave);
	}

	private static boolean interrupted(Throwable ex) {
		if (Thread.currentThread().isInterrupted()) {
			return true;
		}
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException || (cause instanceof java.io.InterruptedIOException
					&& !(cause instanceof java.net.SocketTimeoutException))) {
				return true;
			}
		}
		return false;
	}

	private static TurnStatus status(@Nullable SignalType signal) {
		if (signal == SignalType.ON_COMPLETE) {
			return TurnStatus.COMPLETED;
		}
		return (signal == SignalType.CANCEL) ? TurnStatus.CANCELLED : TurnStatus.ERROR;
	}

}
