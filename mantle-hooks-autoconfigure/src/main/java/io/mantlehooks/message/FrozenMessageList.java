package io.mantlehooks.message;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.Message;

/**
 * The messages of a model-request payload: read-only, and every element read from it is
 * frozen (or of a type the engine does not know, shared as it is), so a payload made from
 * this list needs neither a copy nor a second look at its elements.
 * <p>
 * A message is frozen the first time it is read, not when the list is made: the provider
 * is sent the sources ({@link FrozenMessages#thaw}), so a message no hook or observer
 * reads (the messages a model-request hook returns when nothing comes after it, a history
 * that only the last message of is looked at) is never copied. Every reader of a position
 * gets the same frozen instance: the first freeze published wins, atomically, so
 * observers on other threads share it too.
 */
final class FrozenMessageList extends AbstractList<Message> implements RandomAccess {

	private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Message[].class);

	private static final VarHandle FROZEN;

	static {
		try {
			FROZEN = MethodHandles.lookup().findVarHandle(FrozenMessageList.class, "frozen", Message[].class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** What each position holds as given: a source, or a message frozen already. */
	private final Message[] sources;

	/**
	 * Each position's frozen message, once it was read; made at the first read of a
	 * source that is not frozen yet, so a list of frozen messages (what a hook returns
	 * after copying its payload's) needs none.
	 */
	private volatile @Nullable Message @Nullable [] frozen;

	/** The frozen messages of the turn's previous model call, shared where they fit. */
	private final @Nullable List<Message> earlier;

	/** The application's frozen messages kept across turns, if any. */
	private final @Nullable FrozenMessageCache kept;

	/**
	 * Take over an array nobody else holds.
	 * @param sources the messages, none {@code null}
	 * @param earlier the frozen messages of the turn's previous model call, if any
	 * @param kept the frozen messages kept across turns, {@code null} for none
	 */
	FrozenMessageList(Message[] sources, @Nullable List<Message> earlier, @Nullable FrozenMessageCache kept) {
		this.sources = sources;
		this.earlier = earlier;
		this.kept = kept;
	}

	@Override
	public Message get(int index) {
		Message source = this.sources[index];
		if (source instanceof FrozenMessage) {
			return source;
		}
		Message[] slots = slots();
		Message copy = (Message) SLOTS.getAcquire(slots, index);
		if (copy != null) {
			return copy;
		}
		Message made = freeze(index, source);
		Message first = (Message) SLOTS.compareAndExchangeRelease(slots, index, null, made);
		return (first != null) ? first : made;
	}

	/**
	 * Return the frozen messages' slots, made by the first reader that needs them: the
	 * first made wins, so every reader on every thread fills the same array.
	 * @return the slots
	 */
	private Message[] slots() {
		Message[] slots = this.frozen;
		if (slots != null) {
			return slots;
		}
		Message[] made = new Message[this.sources.length];
		Message[] first = (Message[]) FROZEN.compareAndExchange(this, null, made);
		return (first != null) ? first : made;
	}

	/**
	 * Return the message the provider is sent for a position: its source, without
	 * freezing it.
	 * @param index the position
	 * @return the source message
	 */
	Message sourceAt(int index) {
		Message message = this.sources[index];
		return (message instanceof FrozenMessage copy) ? copy.source() : message;
	}

	/**
	 * Return how many positions were frozen so far (for tests); a position whose source
	 * was frozen already is never counted.
	 * @return the number of positions frozen when read
	 */
	int frozenCount() {
		Message[] slots = this.frozen;
		if (slots == null) {
			return 0;
		}
		int count = 0;
		for (int i = 0; i < slots.length; i++) {
			if (SLOTS.getAcquire(slots, i) != null) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Return whether the slots for frozen messages were made (for tests).
	 * @return whether a source that was not frozen yet was read
	 */
	boolean madeSlots() {
		return this.frozen != null;
	}

	/**
	 * Freeze the source at one position, one that is not frozen yet ({@link #get} reads
	 * frozen ones as they are): the previous model call's frozen message where the same
	 * source sits at the same position is shared (within a turn the position says it is
	 * the same message, so it is not checked); otherwise the copy kept from earlier turns
	 * while it still matches its source, or a new one.
	 * @param index the position
	 * @param source the source there
	 * @return its frozen message
	 */
	private Message freeze(int index, Message source) {
		List<Message> earlier = this.earlier;
		if (earlier != null && index < earlier.size()) {
			if (earlier instanceof FrozenMessageList list) {
				if (list.sourceAt(index) == source) {
					return list.get(index);
				}
			}
			else if (earlier.get(index) instanceof FrozenMessage same && same.source() == source) {
				return same;
			}
		}
		return (this.kept != null) ? this.kept.freeze(source) : FrozenMessages.freezeOne(source);
	}

	@Override
	public int size() {
		return this.sources.length;
	}

	@Override
	public Object[] toArray() {
		// what new ArrayList<>(payload.messages()) asks for, without an iterator
		Object[] messages = new Object[this.sources.length];
		for (int i = 0; i < messages.length; i++) {
			messages[i] = get(i);
		}
		return messages;
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
