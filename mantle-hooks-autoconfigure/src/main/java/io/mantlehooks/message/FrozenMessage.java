package io.mantlehooks.message;

import org.springframework.ai.chat.messages.Message;

/**
 * A message whose content cannot change: its metadata, media, tool calls and tool
 * responses are read-only, and it remembers the message it was made from.
 */
sealed interface FrozenMessage extends Message
		permits FrozenUserMessage, FrozenSystemMessage, FrozenAssistantMessage, FrozenToolResponseMessage {

	/**
	 * The message this one was frozen from: what the provider is sent in its place.
	 * @return the source message
	 */
	Message source();

}
