package io.mantlehooks.message;

import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.Set;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AbstractMessage;

/**
 * Read-only views whose every change fails with an {@link UnsupportedOperationException}
 * that tells a hook author what to do instead: the exception is what the hook's failure
 * is logged with.
 */
final class ReadOnly {

	static final String MESSAGE = "The messages of a hook payload are read-only, shared by every hook of the turn: "
			+ "build a changed message with message.mutate()...build() (or new UserMessage(...)) and "
			+ "return payload.withMessages(...) with it instead of changing a message in place";

	/** One empty list for every message without media, tool calls or responses. */
	@SuppressWarnings("rawtypes")
	private static final List EMPTY = new ReadOnlyList<>(List.of());

	private ReadOnly() {
	}

	static UnsupportedOperationException refused() {
		return new UnsupportedOperationException(MESSAGE);
	}

	/**
	 * Return a read-only view of a list that is filled already and never changes after.
	 * @param <T> the element type
	 * @param list the list
	 * @return the view
	 */
	@SuppressWarnings("unchecked")
	static <T> List<T> list(List<T> list) {
		return list.isEmpty() ? EMPTY : new ReadOnlyList<>(list);
	}

	/**
	 * Return a read-only copy of a list: later changes to the list do not reach it.
	 * @param <T> the element type
	 * @param list the list
	 * @return the copy
	 */
	@SuppressWarnings("unchecked")
	static <T> List<T> copy(List<T> list) {
		return list.isEmpty() ? EMPTY : new ReadOnlyList<>((List<T>) Arrays.asList(list.toArray()));
	}

	static <K, V> Map<K, V> map(Map<K, V> map) {
		return new ReadOnlyMap<>(map);
	}

	/**
	 * Fill a frozen message's own metadata map, which holds its message type already,
	 * with its source's entries: a source with nothing but that same type (most messages)
	 * needs no copy and no iterator.
	 * @param own the frozen message's map
	 * @param source the source message's metadata
	 */
	static void fillMetadata(Map<String, Object> own, Map<String, Object> source) {
		Object type = own.get(AbstractMessage.MESSAGE_TYPE);
		if (own.size() == 1 && source.size() == 1 && type != null && source.get(AbstractMessage.MESSAGE_TYPE) == type) {
			return;
		}
		own.putAll(source);
	}

	/**
	 * Return whether a map holds the very same values under the same keys as a frozen
	 * copy of it: what a fresh copy would hold. Values are compared by identity, as a
	 * copy shares them.
	 * @param frozen the frozen copy
	 * @param now the map as it is now
	 * @return whether they hold the same entries
	 */
	static boolean sameEntries(Map<String, Object> frozen, Map<String, Object> now) {
		if (frozen.size() != now.size()) {
			return false;
		}
		for (Map.Entry<String, Object> entry : frozen.entrySet()) {
			Object value = entry.getValue();
			if (now.get(entry.getKey()) != value || (value == null && !now.containsKey(entry.getKey()))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return whether a list holds the very same elements, in the same order, as a frozen
	 * copy of it.
	 * @param <T> the element type
	 * @param frozen the frozen copy, {@code null} where the source had no list
	 * @param now the list as it is now
	 * @return whether they hold the same elements
	 */
	static <T> boolean sameElements(@Nullable List<T> frozen, @Nullable List<T> now) {
		if (frozen == null || now == null) {
			return frozen == now;
		}
		int size = frozen.size();
		if (now.size() != size) {
			return false;
		}
		for (int i = 0; i < size; i++) {
			if (frozen.get(i) != now.get(i)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * A list view; {@link AbstractList} routes every change (iterators, sublists,
	 * {@code removeIf}, {@code sort}) through the three methods refused here.
	 */
	private static final class ReadOnlyList<T> extends AbstractList<T> implements RandomAccess {

		private final List<T> list;

		ReadOnlyList(List<T> list) {
			this.list = list;
		}

		@Override
		public T get(int index) {
			return this.list.get(index);
		}

		@Override
		public int size() {
			return this.list.size();
		}

		@Override
		public void add(int index, T element) {
			throw refused();
		}

		@Override
		public T set(int index, T element) {
			throw refused();
		}

		@Override
		public T remove(int index) {
			throw refused();
		}

	}

	/**
	 * A map view: the changes a hook would make refuse with the explaining message; the
	 * entry, key and value views are the JDK's unmodifiable ones.
	 */
	private static final class ReadOnlyMap<K, V> extends AbstractMap<K, V> {

		private final Map<K, V> map;

		ReadOnlyMap(Map<K, V> map) {
			this.map = map;
		}

		@Override
		public Set<Entry<K, V>> entrySet() {
			return Collections.unmodifiableMap(this.map).entrySet();
		}

		@Override
		public Set<K> keySet() {
			return Collections.unmodifiableMap(this.map).keySet();
		}

		@Override
		public Collection<V> values() {
			return Collections.unmodifiableMap(this.map).values();
		}

		@Override
		public @Nullable V get(Object key) {
			return this.map.get(key);
		}

		@Override
		public boolean containsKey(Object key) {
			return this.map.containsKey(key);
		}

		@Override
		public int size() {
			return this.map.size();
		}

		@Override
		public V put(K key, V value) {
			throw refused();
		}

		@Override
		public V remove(Object key) {
			throw refused();
		}

		@Override
		public void putAll(Map<? extends K, ? extends V> other) {
			throw refused();
		}

		@Override
		public void clear() {
			throw refused();
		}

		@Override
		public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
			throw refused();
		}

		@Override
		public boolean equals(Object other) {
			return this.map.equals(other);
		}

		@Override
		public int hashCode() {
			return this.map.hashCode();
		}

		@Override
		public String toString() {
			return this.map.toString();
		}

	}

}
