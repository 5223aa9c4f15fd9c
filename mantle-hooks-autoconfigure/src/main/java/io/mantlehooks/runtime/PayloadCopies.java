package io.mantlehooks.runtime;

import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ToolCallPayload;

/**
 * The copies hooks receive, so that nothing a hook does to its argument reaches the turn
 * or another hook. Payload records are deeply immutable already; the exception is the
 * Spring AI messages of a model request, whose metadata maps are mutable, so every hook
 * invocation gets copies of those.
 * <p>
 * The Spring AI types stay inside {@link SpringAiMessages}, which is loaded only when a
 * model-request payload exists, so the runner works without Spring AI on the class path.
 */
final class PayloadCopies {

	private PayloadCopies() {
	}

	/**
	 * Return the payload a modify hook receives.
	 */
	static <P extends HookPayload> P forModifier(P payload) {
		if (payload instanceof ModelRequestPayload request && !request.messages().isEmpty()) {
			@SuppressWarnings("unchecked")
			P copy = (P) request.withMessages(SpringAiMessages.copy(request.messages()));
			return copy;
		}
		return payload;
	}

	/**
	 * Return the payload one observer receives: its own copy, and without tool-call
	 * metadata, which is meant for the MCP server only.
	 */
	static HookPayload forObserver(HookPayload payload) {
		if (payload instanceof ToolCallPayload call && !call.metadata().isEmpty()) {
			return call.withMetadata(Map.of());
		}
		return forModifier(payload);
	}

	/**
	 * Copies of Spring AI messages; the only place of the runner that names Spring AI.
	 */
	private static final class SpringAiMessages {

		@SuppressWarnings("unchecked")
		static <M> List<M> copy(List<M> messages) {
			return (List<M>) ((List<org.springframework.ai.chat.messages.Message>) messages).stream()
				.map(SpringAiMessages::copy)
				.toList();
		}

		private static org.springframework.ai.chat.messages.Message copy(
				org.springframework.ai.chat.messages.Message message) {
			if (message instanceof org.springframework.ai.chat.messages.UserMessage user) {
				return user.copy();
			}
			if (message instanceof org.springframework.ai.chat.messages.SystemMessage system) {
				return system.copy();
			}
			if (message instanceof org.springframework.ai.chat.messages.AssistantMessage assistant) {
				return assistant.copy();
			}
			if (message instanceof org.springframework.ai.chat.messages.ToolResponseMessage toolResponse) {
				return org.springframework.ai.chat.messages.ToolResponseMessage.builder()
					.responses(toolResponse.getResponses())
					.metadata(toolResponse.getMetadata())
					.build();
			}
			return message;
		}

	}

}
