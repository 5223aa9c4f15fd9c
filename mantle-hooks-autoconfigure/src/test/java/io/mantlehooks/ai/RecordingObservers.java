package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.HookPayload;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.annotation.OnTurnStarted;

import static org.awaitility.Awaitility.await;

/**
 * Observers that record every payload they see. They run concurrently, so tests wait for
 * them and do not rely on their order.
 */
class RecordingObservers {

	final List<HookPayload> seen = new CopyOnWriteArrayList<>();

	@OnTurnStarted
	void turnStarted(TurnStartedPayload payload) {
		this.seen.add(payload);
	}

	@OnTurnFinished
	void turnFinished(TurnFinishedPayload payload) {
		this.seen.add(payload);
	}

	@OnIncomingMessage
	void incoming(IncomingMessagePayload payload) {
		this.seen.add(payload);
	}

	@OnModelRequest
	void request(ModelRequestPayload payload) {
		this.seen.add(payload);
	}

	@OnModelResponse
	void response(ModelResponsePayload payload) {
		this.seen.add(payload);
	}

	@OnOutgoingText
	void outgoing(OutgoingTextPayload payload) {
		this.seen.add(payload);
	}

	/**
	 * Waits until the started and the finished observers of that many turns have run:
	 * they are separate invocations, so the finished one may land first.
	 */
	void awaitTurns(int turns, Duration atMost) {
		await().atMost(atMost)
			.until(() -> of(TurnStartedPayload.class).size() == turns && of(TurnFinishedPayload.class).size() == turns);
	}

	<P extends HookPayload> List<P> of(Class<P> type) {
		return this.seen.stream().filter(type::isInstance).map(type::cast).toList();
	}

}
