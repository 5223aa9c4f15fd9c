package io.mantlehooks.ai.turn;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tool-call arguments and hook metadata as JSON, with Jackson: the model sends arguments
 * as a JSON object text, hooks see and return maps.
 */
public final class ToolArguments {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * Reads any JSON value; made once, since it keeps its root deserializer (the mapper
	 * looks it up again for every value it reads).
	 */
	private static final ObjectReader ANY_VALUE = JSON.readerFor(Object.class);

	private ToolArguments() {
	}

	/**
	 * Parse the model's arguments.
	 * @param arguments the JSON text, may be blank
	 * @return the arguments, empty when blank or not a JSON object
	 */
	public static Map<String, Object> parse(@Nullable String arguments) {
		Map<String, Object> parsed = parseObject(arguments);
		return (parsed != null) ? parsed : Map.of();
	}

	/**
	 * Parse the model's arguments when they are one JSON object.
	 * @param arguments the JSON text, may be blank
	 * @return the arguments, empty when blank; {@code null} when the text is not one
	 * readable JSON object (malformed, another JSON value, text after the object, or
	 * nesting past the reader's limits)
	 */
	@SuppressWarnings("unchecked")
	public static @Nullable Map<String, Object> parseObject(@Nullable String arguments) {
		if (arguments == null || arguments.isBlank()) {
			return Map.of();
		}
		try {
			Object parsed = ANY_VALUE.readValue(arguments);
			return (parsed instanceof Map<?, ?> map) ? (Map<String, Object>) map : null;
		}
		catch (RuntimeException ex) {
			// the model sent text that is not JSON
			return null;
		}
	}

	/**
	 * Write arguments as JSON text.
	 * @param arguments the arguments
	 * @return the JSON object text
	 */
	public static String toJson(Map<String, Object> arguments) {
		return JSON.writeValueAsString(arguments);
	}

	/**
	 * A JSON round trip: proves the value serializable and deep-copies it, so later
	 * changes to the hook's own map cannot alter what the MCP server receives.
	 * @param metadata the hook's metadata
	 * @return the copy, or {@code null} when it is not JSON-serializable
	 */
	@SuppressWarnings("unchecked")
	public static @Nullable Map<String, Object> jsonCopy(Map<String, Object> metadata) {
		if (metadata.isEmpty()) {
			return Map.of();
		}
		try {
			return JSON.readValue(JSON.writeValueAsString(metadata), Map.class);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}
