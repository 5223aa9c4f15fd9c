package io.mantlehooks.message;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

import org.springframework.ai.chat.messages.Message;

/**
 * The messages of a model-request payload: read-only, and every element is frozen (or of
 * a type the engine does not know, shared as it is), so a payload made from this list
 * needs neither a copy nor a second look at its elements.
 */
final class FrozenMessageList extends AbstractList<Message> implements RandomAccess {

	private final Message[] messages;

	/**
	 * Take over an array nobody else holds.
	 * @param messages the frozen messages
	 */
	FrozenMessageList(Message[] messages) {
		this.messages = messages;
	}

	@Override
	public Message get(int index) {
		return this.messages[index];
	}

	@Override
	public int size() {
		return this.messages.length;
	}

	@Override
	public Object[] toArray() {
		// what new ArrayList<>(payload.messages()) asks for, without an iterator
		return Arrays.copyOf(this.messages, this.messages.length, Object[].class);
	}

	@Override
	public void add(int index, Message element) {
		throw ReadOnly.refused();
	}

	@Override
	public Message set(int index, Message element) {
		throw ReadOnly.refused();
	}

	@Override
	public Message remove(int index) {
		throw ReadOnly.refused();
	}

}
