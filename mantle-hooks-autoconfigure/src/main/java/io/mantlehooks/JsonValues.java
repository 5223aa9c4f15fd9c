package io.mantlehooks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Deep, unmodifiable copies of JSON-like values (maps, lists, scalars), so that a payload
 * handed to a hook cannot be changed through a collection it holds, and later changes to
 * the caller's collections cannot reach the payload.
 */
final class JsonValues {

	private JsonValues() {
	}

	static Map<String, Object> copyMap(@Nullable Map<String, ?> map) {
		if (map == null || map.isEmpty()) {
			return Collections.emptyMap();
		}
		Map<String, @Nullable Object> copy = new LinkedHashMap<>(map.size() * 2);
		map.forEach((key, value) -> copy.put(String.valueOf(key), copyValue(value)));
		return Collections.unmodifiableMap(copy);
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

	@SuppressWarnings("unchecked")
	private static @Nullable Object copyValue(@Nullable Object value) {
		if (value instanceof Map<?, ?> map) {
			return copyMap((Map<String, ?>) map);
		}
		if (value instanceof Collection<?> collection) {
			List<@Nullable Object> copy = new ArrayList<>(collection.size());
			collection.forEach((item) -> copy.add(copyValue(item)));
			return Collections.unmodifiableList(copy);
		}
		if (value instanceof Object[] array) {
			return copyValue(java.util.Arrays.asList(array));
		}
		return value;
	}

}
