package io.mantlehooks.ai;

import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;

/**
 * One modifier each, to show that each alone buffers a streamed reply.
 */
final class SingleModifierHooks {

	private SingleModifierHooks() {
	}

	static class ResponseOnly {

		@ModifyModelResponse
		ModelResponsePayload keep(ModelResponsePayload response) {
			return response;
		}

	}

	static class ToolCallOnly {

		@ModifyToolCall
		ToolCallPayload keep(ToolCallPayload call) {
			return call;
		}

	}

	static class OutgoingOnly {

		@ModifyOutgoingText
		OutgoingTextPayload keep(OutgoingTextPayload text) {
			return text;
		}

	}

}
