package io.mantlehooks.message;

import java.lang.ref.SoftReference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.Message;
import org.springframework.util.Assert;

/**
 * Frozen messages kept across turns, so that a conversation whose history chat memory
 * hands out as the same instances every turn ({@code MessageWindowChatMemory} over the
 * in-memory repository) freezes only its new messages. One per application (the
 * model-call stage holds it); never global.
 * <p>
 * A kept copy is found by its source's identity and handed out again only while it still
 * {@link FrozenMessage#matchesSource() matches its source}: a message whose metadata,
 * media or tool calls changed since is frozen again. Identity is also why one
 * conversation can never get another's messages: a copy is reused for its own source
 * only, and then holds what a fresh freeze of that source would.
 * <p>
 * Bounded: a fixed number of slots, each holding one copy. A message may sit in any of
 * the {@value #WAYS} slots after the one its identity hash picks; a new copy takes a free
 * slot there or replaces the longest kept one, so the messages of one prompt do not push
 * each other out, and a collision costs a freeze, never a wrong message. Each slot holds
 * its copy softly: a copy keeps its source alive, and a source the application has
 * dropped (a history loaded from a database is new instances every turn) should cost
 * memory only while there is memory to spare. Slots are read and replaced atomically, so
 * concurrent turns need no lock; two turns racing for one slot only freeze a message
 * again.
 */
public final class FrozenMessageCache {

	/**
	 * How many frozen messages an application keeps at most: the 20-message windows
	 * (Spring AI's default) of about two hundred conversations, each copy about 300 bytes
	 * besides its source.
	 */
	public static final int DEFAULT_CAPACITY = 4096;

	/** How many slots, from the one a message's hash picks, may hold its copy. */
	static final int WAYS = 8;

	private final AtomicReferenceArray<@Nullable Kept> slots;

	private final int mask;

	private final int ways;

	/** Orders the copies by when they were kept, to replace the longest kept one. */
	private final AtomicLong kept = new AtomicLong();

	/**
	 * Create a cache of {@link #DEFAULT_CAPACITY} messages.
	 */
	public FrozenMessageCache() {
		this(DEFAULT_CAPACITY);
	}

	/**
	 * Create a cache.
	 * @param capacity how many frozen messages it keeps at most, rounded up to a power of
	 * two
	 */
	public FrozenMessageCache(int capacity) {
		Assert.isTrue(capacity > 0 && capacity <= (1 << 24), "'capacity' must be between 1 and 2^24");
		int slots = Integer.highestOneBit(capacity);
		slots = (slots < capacity) ? slots << 1 : slots;
		this.slots = new AtomicReferenceArray<>(slots);
		this.mask = slots - 1;
		this.ways = Math.min(WAYS, slots);
	}

	/**
	 * Return the frozen copy of a message: the one kept from an earlier turn while it
	 * still matches the message, else a new one, which is kept.
	 * @param message a message that is not frozen
	 * @return its frozen copy, or the message itself when its type cannot be frozen
	 */
	Message freeze(Message message) {
		int first = first(message);
		int slot = -1;
		for (int way = 0; way < this.ways && slot < 0; way++) {
			Kept kept = this.slots.get((first + way) & this.mask);
			FrozenMessage copy = (kept != null) ? kept.get() : null;
			if (copy != null && copy.source() == message) {
				if (copy.matchesSource()) {
					return copy;
				}
				// changed since: its new copy takes the old one's place
				slot = (first + way) & this.mask;
			}
		}
		Message frozen = FrozenMessages.freezeOne(message);
		if (frozen instanceof FrozenMessage copy) {
			this.slots.set((slot >= 0) ? slot : freeSlot(first), new Kept(copy, this.kept.getAndIncrement()));
		}
		return frozen;
	}

	/**
	 * Return a free slot of a message's ways (never used, or its copy collected), else
	 * the one of the longest kept copy there.
	 * @param first the first of the message's slots
	 * @return the slot its copy takes
	 */
	private int freeSlot(int first) {
		int victim = first;
		long oldest = Long.MAX_VALUE;
		for (int way = 0; way < this.ways; way++) {
			int slot = (first + way) & this.mask;
			Kept kept = this.slots.get(slot);
			if (kept == null || kept.get() == null) {
				return slot;
			}
			if (kept.order < oldest) {
				oldest = kept.order;
				victim = slot;
			}
		}
		return victim;
	}

	/**
	 * Return how many frozen messages are kept now.
	 * @return at most the capacity
	 */
	int size() {
		int size = 0;
		for (int i = 0; i < this.slots.length(); i++) {
			Kept kept = this.slots.get(i);
			if (kept != null && kept.get() != null) {
				size++;
			}
		}
		return size;
	}

	/**
	 * Return how many frozen messages it keeps at most.
	 * @return the number of slots
	 */
	int capacity() {
		return this.slots.length();
	}

	private int first(Message message) {
		int hash = System.identityHashCode(message);
		return (hash ^ (hash >>> 16)) & this.mask;
	}

	/**
	 * A kept copy, held softly, and when it was kept.
	 */
	private static final class Kept extends SoftReference<FrozenMessage> {

		final long order;

		Kept(FrozenMessage copy, long order) {
			super(copy);
			this.order = order;
		}

	}

}
