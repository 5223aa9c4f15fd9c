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

	/**
	 * Return whether this copy still holds what its source holds now: the same text and
	 * the very same metadata values, media, tool calls and tool responses. A source's
	 * metadata map and lists can change after it was frozen (chat memory keeps a message
	 * across turns), so a copy kept across turns is reused only while this holds.
	 * @return whether a fresh freeze of the source would hold what this copy holds
	 */
	boolean matchesSource();

}
