package io.mantlehooks.ai.chat;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.ai.chat.IncomingMessageStage.Start;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.execution.HookRunner;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;

/**
 * One top-level turn at its edges, the same for {@code .call()} and {@code .stream()}:
 * its identity and observation, the incoming-message hooks and approval claim at the
 * start, the started/finished pair, the transcript, the caller's context on every
 * response, and the observation's outcome. The advisor's two drivers only decide when
 * each step runs (blocking, or as a Reactor signal); every decision is made here, once. A
 * response of {@code .call()} is a stream of one chunk.
 */
final class TurnRun {

	private final Edge edge;

	private final Turn turn;

	private final @Nullable Observation observation;

	private final TurnLifecycle lifecycle;

	private final TurnContexts.Chunks chunks;

	private final Instant startedAt;

	private final AtomicBoolean ended = new AtomicBoolean();

	private final AtomicBoolean endedAtStartRecorded = new AtomicBoolean();

	private volatile @Nullable Start start;

	private volatile @Nullable TurnTranscript transcript;

	private volatile @Nullable ChatClientResponse last;

	private volatile @Nullable Throwable failure;

	private TurnRun(Edge edge, Turn turn, @Nullable Observation observation) {
		this.edge = edge;
		this.turn = turn;
		this.observation = observation;
		this.lifecycle = new TurnLifecycle(edge.hooks(), turn);
		this.chunks = new TurnContexts.Chunks(turn);
		this.startedAt = edge.transcript().now();
	}

	/**
	 * Begin a top-level turn: its identity from the request's params and its observation.
	 * @param parent the observation the turn runs under, {@code null} for the current one
	 */
	static TurnRun begin(Edge edge, ChatClientRequest request, CallerContext caller, @Nullable Observation parent) {
		Turn started = Turn.start(request.context(), caller);
		Observation observation = edge.observations().start(started, parent);
		return new TurnRun(edge, (observation != null) ? started.observed(observation) : started, observation);
	}

	Turn turn() {
		return this.turn;
	}

	@Nullable Observation observation() {
		return this.observation;
	}

	/**
	 * The start of the turn: the incoming-message hooks, then, for an approval or denial,
	 * the claim of the paused batch.
	 */
	Step<Start> start(ChatClientRequest request) {
		return this.edge.incoming()
			.start(this.turn, TurnContexts.enter(request, this.turn))
			.then((started) -> this.edge.approvals().resume(this.turn, started))
			.map((started) -> {
				this.start = started;
				// the turn console's list tells turns apart by their first words
				if (this.observation != null
						&& this.observation.getContext() instanceof TurnObservationContext context) {
					context.setUserText(started.userText());
				}
				return started;
			});
	}

	/**
	 * Return the reply of a turn that ended at its start (a rejected message, an approval
	 * that found nothing), as the caller receives it; {@code null} when the turn goes on
	 * to the chain.
	 */
	@Nullable ChatClientResponse endedAtStart(Start start) {
		ChatClientResponse reply = start.reply();
		if (reply == null) {
			return null;
		}
		ChatClientResponse left = TurnContexts.leave(reply, this.turn, start.outcome());
		this.last = left;
		return left;
	}

	/**
	 * Enter the chain: the turn starts (its started observers fire).
	 * @return {@code false} when the turn already ended (cancelled before it started)
	 */
	boolean enterChain(Start start) {
		if (records()) {
			this.transcript = new TurnTranscript(this.edge.transcript(), this.turn, start.userText(), this.startedAt);
		}
		return this.lifecycle.start();
	}

	/**
	 * Return whether a streamed reply may be retracted: an outgoing-text hook rewrites it
	 * sentence by sentence and may reject a sentence after others went out.
	 */
	boolean retracts() {
		return OutgoingTextStage.modifierStreams(this.edge.hooks(), this.turn, StreamMode.SENTENCES);
	}

	/**
	 * Return whether the turn writes a transcript; when not, the record steps do nothing
	 * and the drivers need not schedule them.
	 */
	boolean records() {
		return this.edge.transcript().records();
	}

	/**
	 * Write the pair of a turn that ended at its start, once: the user's message and the
	 * reply, both set aside when rejected. The user's entry carries the outcome only when
	 * the message itself was set aside: the turn's outcome is on the reply's entry.
	 */
	void recordEndedAtStart() {
		Start started = this.start;
		ChatClientResponse reply = this.last;
		if (started == null || reply == null || !this.endedAtStartRecorded.compareAndSet(false, true)) {
			return;
		}
		String outcome = outcome(reply);
		this.edge.transcript()
			.user(this.turn, started.userText(), started.discarded(), started.discarded() ? outcome : null,
					this.startedAt);
		this.edge.transcript().assistant(this.turn, text(reply), started.discarded(), outcome);
	}

	/** Write the user's message, once, before the reply. */
	void recordUser() {
		TurnTranscript transcript = this.transcript;
		if (transcript != null) {
			transcript.user();
		}
	}

	/**
	 * Return a response (or a streamed chunk) as the caller receives it, and note what
	 * the user received.
	 */
	ChatClientResponse leave(ChatClientResponse response) {
		ChatClientResponse left = this.chunks.leave(response);
		TurnTranscript transcript = this.transcript;
		if (transcript != null) {
			transcript.received(text(left), outcome(left), SegmentedReply.isRetraction(left));
		}
		this.last = left;
		return left;
	}

	/** Write what the user received, once: completed, or cut short by a cancel. */
	void recordReply(boolean cancelled) {
		TurnTranscript transcript = this.transcript;
		if (transcript == null) {
			return;
		}
		if (cancelled) {
			transcript.cancelled();
		}
		else {
			transcript.completed();
		}
	}

	/**
	 * Return the response of a turn whose caller gave up (its thread was interrupted):
	 * nothing is sent.
	 */
	ChatClientResponse cancelled(ChatClientRequest request) {
		ChatClientResponse empty = ChatResponses.withoutGenerations(ChatResponses.textResponse(request, ""));
		ChatClientResponse left = TurnContexts.leave(empty, this.turn,
				new Outcome(Outcome.CANCELLED, "the caller's thread was interrupted"));
		this.last = left;
		return left;
	}

	/** Note what failed the turn, for its observation. */
	void failed(Throwable failure) {
		this.failure = failure;
	}

	/**
	 * End the turn, once: the finished observers (when it started) and the observation,
	 * with the outcome of the last response for a completed turn.
	 */
	void end(TurnStatus status) {
		if (!this.ended.compareAndSet(false, true)) {
			return;
		}
		this.lifecycle.end(status);
		switch (status) {
			case COMPLETED -> TurnObservations.stop(this.observation, this.last);
			case CANCELLED -> TurnObservations.stop(this.observation, TurnObservationContext.CANCELLED, null);
			default -> TurnObservations.stop(this.observation, TurnObservationContext.ERROR, this.failure);
		}
	}

	private static @Nullable String text(ChatClientResponse response) {
		return (response.chatResponse() != null && response.chatResponse().getResult() != null)
				? ChatResponses.text(response.chatResponse()) : null;
	}

	private static @Nullable String outcome(ChatClientResponse response) {
		Object outcome = response.context().get(MantleHooks.OUTCOME);
		return (outcome != null) ? outcome.toString() : null;
	}

	/**
	 * What every turn's edges work with.
	 */
	record Edge(HookRunner hooks, IncomingMessageStage incoming, ApprovalStage approvals, TranscriptRecorder transcript,
			TurnObservations observations) {
	}

}
