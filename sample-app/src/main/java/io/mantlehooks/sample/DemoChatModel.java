package io.mantlehooks.sample;

import java.util.List;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.stereotype.Component;

/**
 * An offline stand-in for a real chat model, for the demo only: it answers every prompt
 * by repeating the user's last message. Replace it with a Spring AI model starter
 * (OpenAI, Ollama, ...) in a real application.
 */
@Component
class DemoChatModel implements ChatModel {

	@Override
	public ChatResponse call(Prompt prompt) {
		List<Message> instructions = prompt.getInstructions();
		String lastUserText = instructions.stream()
			.filter((message) -> message.getMessageType() == MessageType.USER)
			.reduce((first, second) -> second)
			.map(Message::getText)
			.orElse("");
		return new ChatResponse(List.of(new Generation(new AssistantMessage("You said: " + lastUserText))));
	}

}
