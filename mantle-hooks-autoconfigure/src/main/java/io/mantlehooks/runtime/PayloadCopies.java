package io.mantlehooks.runtime;

import java.util.List;

import io.mantlehooks.HookPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ToolCallPayload;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * The copies hooks receive, so that nothing a hook does to its argument reaches the turn.
 * Payload records are deeply immutable already; the exception is the Spring AI messages
 * of a model request, whose metadata maps are mutable, so hooks get copies of those.
 */
final class PayloadCopies {

	private PayloadCopies() {
	}

	/**
	 * Return the payload a modify hook receives.
	 */
	static <P extends HookPayload> P forModifier(P payload) {
		if (payload instanceof ModelRequestPayload request) {
			@SuppressWarnings("unchecked")
			P copy = (P) request.withMessages(copyMessages(request.messages()));
			return copy;
		}
		return payload;
	}

	/**
	 * Return the payload observers receive: as for modify hooks, and without tool-call
	 * metadata, which is meant for the MCP server only.
	 */
	static HookPayload forObservers(HookPayload payload) {
		if (payload instanceof ToolCallPayload call && !call.metadata().isEmpty()) {
			return call.withMetadata(java.util.Map.of());
		}
		return forModifier(payload);
	}

	private static List<Message> copyMessages(List<Message> messages) {
		return messages.stream().map(PayloadCopies::copy).toList();
	}

	private static Message copy(Message message) {
		if (message instanceof UserMessage user) {
			return user.copy();
		}
		if (message instanceof SystemMessage system) {
			return system.copy();
		}
		if (message instanceof AssistantMessage assistant) {
			return assistant.copy();
		}
		if (message instanceof ToolResponseMessage toolResponse) {
			return ToolResponseMessage.builder()
				.responses(toolResponse.getResponses())
				.metadata(toolResponse.getMetadata())
				.build();
		}
		return message;
	}

}
