package io.mantlehooks;

import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Deep, unmodifiable copies of JSON-like values (maps, lists, scalars), so that a payload
 * handed to a hook cannot be changed through a collection it holds, and later changes to
 * the caller's collections cannot reach the payload. Nesting deeper than
 * {@value #MAX_DEPTH} levels (or a map that contains itself) is refused with a
 * {@link PayloadTooDeepException} instead of exhausting the stack. A value this class
 * copied already is not copied again, so identity copied once per turn stays cheap in
 * every payload of the turn.
 */
final class JsonValues {

	/** How deep maps and lists may nest inside a payload. */
	static final int MAX_DEPTH = 64;

	private JsonValues() {
	}

	static Map<String, Object> copyMap(@Nullable Map<String, ?> map) {
		if (map == null || map.isEmpty()) {
			return Collections.emptyMap();
		}
		if (map instanceof FrozenMap frozen) {
			return frozen;
		}
		return copyMap(map, 1);
	}

	static Map<String, String> copyStringMap(@Nullable Map<String, String> map) {
		if (map == null || map.isEmpty()) {
			return Collections.emptyMap();
		}
		return Collections.unmodifiableMap(new LinkedHashMap<>(map));
	}

	static <T> List<T> copyList(@Nullable List<T> list) {
		return (list != null) ? List.copyOf(list) : List.of();
	}

	private static Map<String, Object> copyMap(Map<?, ?> map, int depth) {
		check(depth);
		Map<String, @Nullable Object> copy = new LinkedHashMap<>(map.size() * 2);
		map.forEach((key, value) -> copy.put(String.valueOf(key), copyValue(value, depth + 1)));
		return new FrozenMap(copy);
	}

	private static @Nullable Object copyValue(@Nullable Object value, int depth) {
		if (value instanceof FrozenMap || value instanceof FrozenList) {
			return value;
		}
		if (value instanceof Map<?, ?> map) {
			return copyMap(map, depth);
		}
		if (value instanceof Collection<?> collection) {
			check(depth);
			List<@Nullable Object> copy = new ArrayList<>(collection.size());
			collection.forEach((item) -> copy.add(copyValue(item, depth + 1)));
			return new FrozenList(copy);
		}
		if (value instanceof Object[] array) {
			return copyValue(Arrays.asList(array), depth);
		}
		return value;
	}

	private static void check(int depth) {
		if (depth > MAX_DEPTH) {
			throw new PayloadTooDeepException(MAX_DEPTH);
		}
	}

	/**
	 * An unmodifiable map this class made: its values are copies too.
	 */
	private static final class FrozenMap extends AbstractMap<String, Object> {

		private final Map<String, Object> map;

		FrozenMap(Map<String, @Nullable Object> map) {
			this.map = Collections.unmodifiableMap(map);
		}

		@Override
		public Set<Entry<String, Object>> entrySet() {
			return this.map.entrySet();
		}

		@Override
		public @Nullable Object get(Object key) {
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

	}

	/**
	 * An unmodifiable list this class made: its elements are copies too.
	 */
	private static final class FrozenList extends AbstractList<@Nullable Object> {

		private final List<@Nullable Object> list;

		FrozenList(List<@Nullable Object> list) {
			this.list = list;
		}

		@Override
		public @Nullable Object get(int index) {
			return this.list.get(index);
		}

		@Override
		public int size() {
			return this.list.size();
		}

	}

}
