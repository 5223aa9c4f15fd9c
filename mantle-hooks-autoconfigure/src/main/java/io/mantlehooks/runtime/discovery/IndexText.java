package io.mantlehooks.runtime.discovery;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

/**
 * Reads a properties file as {@link Properties#load(java.io.InputStream)} does, fast on a
 * cold JVM for the form {@code mantle-hooks-processor} writes: one {@code key=value} a
 * line, {@code \n} line ends, comment lines, and only the escapes {@code \#}, {@code \=},
 * {@code \!} and {@code \\}. {@code Properties.load} runs its whole loop in one call, so
 * on a cold JVM a large index (thousands of keys) is read by the interpreter until an
 * on-stack compilation arrives; here each line goes through a few short methods the JIT
 * compiles after the first few hundred lines. Any other form (whitespace, {@code :} or a
 * {@code \r} anywhere, other escapes, continued lines) is read by {@code Properties} as a
 * whole, so the result is always what {@code Properties.load} would give.
 */
final class IndexText {

	private IndexText() {
	}

	/**
	 * Read the entries of a properties file.
	 * @param bytes the file, ISO 8859-1 as {@code Properties.load} reads a stream
	 * @return the entries, as {@code Properties.load} reads them
	 * @throws IllegalArgumentException when {@code Properties.load} would throw it (a
	 * malformed {@code \\uxxxx} escape)
	 */
	static Map<String, String> read(byte[] bytes) {
		String text = new String(bytes, StandardCharsets.ISO_8859_1);
		Map<String, String> simple = simple(text);
		return (simple != null) ? simple : withProperties(bytes);
	}

	private static @Nullable Map<String, String> simple(String text) {
		if (text.indexOf('\r') >= 0) {
			return null;
		}
		Map<String, String> entries = new HashMap<>();
		int start = 0;
		while (start < text.length()) {
			int end = text.indexOf('\n', start);
			if (end < 0) {
				end = text.length();
			}
			if (!line(text.substring(start, end), entries)) {
				return null;
			}
			start = end + 1;
		}
		return entries;
	}

	/**
	 * Read one line into the entries.
	 * @return {@code false} when the line is not of the simple form
	 */
	private static boolean line(String line, Map<String, String> entries) {
		if (line.isEmpty()) {
			return true;
		}
		char first = line.charAt(0);
		if (first == '#' || first == '!') {
			return true;
		}
		if (line.indexOf(' ') >= 0 || line.indexOf('\t') >= 0 || line.indexOf('\f') >= 0 || line.indexOf(':') >= 0) {
			return false;
		}
		int separator = separator(line);
		if (separator < 0) {
			return false;
		}
		String key = unescape(line.substring(0, separator));
		String value = unescape(line.substring(separator + 1));
		if (key == null || value == null) {
			return false;
		}
		entries.put(key, value);
		return true;
	}

	/**
	 * Return the first {@code =} not escaped by a backslash, -1 when there is none.
	 */
	private static int separator(String line) {
		int from = 0;
		while (true) {
			int equals = line.indexOf('=', from);
			if (equals < 0) {
				return -1;
			}
			int backslashes = 0;
			for (int i = equals - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
				backslashes++;
			}
			if (backslashes % 2 == 0) {
				return equals;
			}
			from = equals + 1;
		}
	}

	/**
	 * Undo the escapes of the simple form, {@code null} for any other escape.
	 */
	private static @Nullable String unescape(String text) {
		int backslash = text.indexOf('\\');
		if (backslash < 0) {
			return text;
		}
		StringBuilder plain = new StringBuilder(text.length());
		int from = 0;
		while (backslash >= 0) {
			if (backslash + 1 >= text.length()) {
				return null;
			}
			char escaped = text.charAt(backslash + 1);
			if (escaped != '#' && escaped != '=' && escaped != '!' && escaped != '\\') {
				return null;
			}
			plain.append(text, from, backslash).append(escaped);
			from = backslash + 2;
			backslash = text.indexOf('\\', from);
		}
		return plain.append(text, from, text.length()).toString();
	}

	private static Map<String, String> withProperties(byte[] bytes) {
		Properties properties = new Properties();
		try {
			properties.load(new ByteArrayInputStream(bytes));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, String> entries = new HashMap<>();
		for (String key : properties.stringPropertyNames()) {
			entries.put(key, properties.getProperty(key));
		}
		return entries;
	}

}
