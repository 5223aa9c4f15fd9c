package io.mantlehooks.message;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Freezes the messages of a model request once, so that every hook and observer shares
 * them. Spring AI messages always hold a changeable metadata map (and lists of media,
 * tool calls and responses); a frozen message is an instance of the same Spring AI type
 * with the same content whose getters hand out read-only views, and a change fails with
 * an {@link UnsupportedOperationException} that says what to do instead. A message that
 * is frozen already is kept; a message of a type the engine does not know (not one of the
 * four Spring AI types or their subclasses) is shared as it is.
 * <p>
 * The provider is sent the source messages ({@link #thaw}), the very instances the turn
 * had, never frozen ones: frozen messages exist only inside hook payloads.
 */
public final class FrozenMessages {

	private FrozenMessages() {
	}

	/**
	 * Return the messages, every one frozen, as a read-only list.
	 * @param messages the messages, none {@code null}
	 * @return the frozen messages: the same list when it holds frozen messages only
	 * @throws NullPointerException when an element is {@code null}
	 */
	public static List<Message> freeze(List<Message> messages) {
		return freeze(messages, null);
	}

	/**
	 * Return the messages, every one frozen, reusing the frozen messages of an earlier
	 * model call of the same turn where the same message sits at the same position: a
	 * history kept across the turn's model calls is frozen once.
	 * @param messages the messages, none {@code null}
	 * @param earlier the frozen messages of the turn's previous model call, if any
	 * @return the frozen messages: the same list when it holds frozen messages only
	 * @throws NullPointerException when an element is {@code null}
	 */
	public static List<Message> freeze(List<Message> messages, @Nullable List<Message> earlier) {
		return freeze(messages, earlier, null);
	}

	/**
	 * Return the messages, every one frozen, reusing the frozen messages of an earlier
	 * model call of the same turn where the same message sits at the same position, and
	 * otherwise those kept from earlier turns: a history that chat memory hands out as
	 * the same instances every turn is frozen once, not once per turn.
	 * @param messages the messages, none {@code null}
	 * @param earlier the frozen messages of the turn's previous model call, if any
	 * @param kept the frozen messages kept across turns, {@code null} for none
	 * @return the frozen messages: the same list when it holds frozen messages only
	 * @throws NullPointerException when an element is {@code null}
	 */
	public static List<Message> freeze(List<Message> messages, @Nullable List<Message> earlier,
			@Nullable FrozenMessageCache kept) {
		if (messages instanceof FrozenMessageList) {
			return messages;
		}
		Message[] sources = messages.toArray(new Message[0]);
		for (Message message : sources) {
			Objects.requireNonNull(message, "messages must not contain null");
		}
		// each is frozen when first read (FrozenMessageList): what nobody reads is sent
		// as it is, never copied
		return new FrozenMessageList(sources, earlier, kept);
	}

	/**
	 * Return whether a message is frozen.
	 * @param message a message
	 * @return whether it cannot change
	 */
	public static boolean isFrozen(Message message) {
		return message instanceof FrozenMessage;
	}

	/**
	 * Return the messages to send to the provider: each frozen message's source (the
	 * message it was frozen from), any other message as it is.
	 * @param messages messages, frozen or not
	 * @return the source messages, in order
	 */
	public static List<Message> thaw(List<Message> messages) {
		List<Message> sources = new ArrayList<>(messages.size());
		if (messages instanceof FrozenMessageList frozen) {
			// without freezing what no hook read
			for (int i = 0; i < frozen.size(); i++) {
				sources.add(frozen.sourceAt(i));
			}
			return sources;
		}
		for (Message message : messages) {
			sources.add((message instanceof FrozenMessage frozen) ? frozen.source() : message);
		}
		return sources;
	}

	static Message freezeOne(Message message) {
		if (message instanceof UserMessage user) {
			return new FrozenUserMessage(user);
		}
		if (message instanceof AssistantMessage assistant) {
			return new FrozenAssistantMessage(assistant);
		}
		if (message instanceof SystemMessage system) {
			return new FrozenSystemMessage(system);
		}
		if (message instanceof ToolResponseMessage toolResponse) {
			return new FrozenToolResponseMessage(toolResponse);
		}
		return message;
	}

}
