package io.mantlehooks;

import java.util.List;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Copies of Spring AI messages, for {@link ModelRequestPayload#withCopiedMessages()}:
 * kept beside the payload that holds them, so the runner names no Spring AI type.
 */
final class MessageCopies {

	private MessageCopies() {
	}

	static List<Message> copy(List<Message> messages) {
		Message[] copies = new Message[messages.size()];
		for (int i = 0; i < copies.length; i++) {
			copies[i] = copy(messages.get(i));
		}
		// List.of: the payload's List.copyOf keeps it as it is, no second copy
		return List.of(copies);
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
