package io.mantlehooks.ai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;

/**
 * Modify hooks whose behaviour each test scripts, recording what they were given in the
 * order the turn ran them (modify hooks are awaited, so the order is the turn's).
 */
class ScriptedHooks {

	final List<String> calls = new CopyOnWriteArrayList<>();

	final List<Object> payloads = new CopyOnWriteArrayList<>();

	volatile UnaryOperator<IncomingMessagePayload> incoming = UnaryOperator.identity();

	volatile UnaryOperator<ModelRequestPayload> request = UnaryOperator.identity();

	volatile UnaryOperator<ModelResponsePayload> response = UnaryOperator.identity();

	volatile UnaryOperator<OutgoingTextPayload> outgoing = UnaryOperator.identity();

	@ModifyIncomingMessage
	IncomingMessagePayload incoming(IncomingMessagePayload payload) {
		record("incoming-message", payload);
		return this.incoming.apply(payload);
	}

	@ModifyModelRequest
	ModelRequestPayload request(ModelRequestPayload payload) {
		record("model-request#" + payload.iteration(), payload);
		return this.request.apply(payload);
	}

	@ModifyModelResponse
	ModelResponsePayload response(ModelResponsePayload payload) {
		record("model-response", payload);
		return this.response.apply(payload);
	}

	@ModifyOutgoingText
	OutgoingTextPayload outgoing(OutgoingTextPayload payload) {
		record("outgoing-text:" + payload.text(), payload);
		return this.outgoing.apply(payload);
	}

	private void record(String call, Object payload) {
		this.calls.add(call);
		this.payloads.add(payload);
	}

}
