package io.mantlehooks.runtime.discovery;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.mantlehooks.HookSignal;

/**
 * Reads format version 2 of {@code mantle-hooks-processor}'s index: one line per hook
 * class, {@code <binary name> <size>,<crc32 hex>,<mtime ms>}, then, separated by single
 * spaces, each method that constructs a control signal as
 * {@code <name><descriptor>=<signals>[=<rejection names>]} (comma-separated lists); a
 * method of the class that is not listed constructs none. The file is ASCII; any other
 * character, and {@code \}, {@code ,} and {@code =} in a name, is written as
 * {@code \}{@code uXXXX}. Comment lines start with {@code #}; the first other line is
 * {@link #VERSION_LINE}.
 * <p>
 * This runs on a cold JVM for every start, with one line per hook class (thousands in a
 * large application): a few {@code indexOf} calls and short loops per line, no
 * {@code Properties}, no regular expression, no split. Anything malformed fails the whole
 * file ({@link IllegalArgumentException}), which is then ignored.
 */
final class IndexLines {

	/** The line that says a file is of this format. */
	static final String VERSION_LINE = "mantle-hooks.source-checks.version=2";

	private IndexLines() {
	}

	/**
	 * Whether the first line that is neither empty nor a comment is the version 2 line.
	 */
	static boolean isVersion2(byte[] bytes) {
		int start = 0;
		while (start < bytes.length) {
			int end = start;
			while (end < bytes.length && bytes[end] != '\n') {
				end++;
			}
			if (end > start && bytes[start] != '#') {
				// with a CR line end it is still this format's file, which then fails
				// on the CR, so that the warning names what is wrong
				int length = (bytes[end - 1] == '\r') ? end - start - 1 : end - start;
				return length == VERSION_LINE.length()
						&& VERSION_LINE.equals(new String(bytes, start, length, StandardCharsets.ISO_8859_1));
			}
			start = end + 1;
		}
		return false;
	}

	/**
	 * Read every class line.
	 * @param bytes the file (its first line that is not a comment is
	 * {@link #VERSION_LINE})
	 * @return the class entries by binary name, each answering
	 * {@link SourceChecks#NOTHING nothing} for a method it does not list
	 * @throws IllegalArgumentException when anything in the file is malformed
	 */
	static Map<String, SourceChecks.ClassEntry> parse(byte[] bytes) {
		// US-ASCII decoding marks any other byte with U+FFFD, which the (then two-byte)
		// string finds; an ASCII string answers at once
		String text = new String(bytes, StandardCharsets.US_ASCII);
		if (text.indexOf('\uFFFD') >= 0 || text.indexOf('\r') >= 0 || text.indexOf('\t') >= 0) {
			throw new IllegalArgumentException("not the processor's ASCII form");
		}
		Map<String, SourceChecks.ClassEntry> classes = new HashMap<>();
		boolean versioned = false;
		int start = 0;
		while (start < text.length()) {
			int end = text.indexOf('\n', start);
			if (end < 0) {
				end = text.length();
			}
			if (end > start && text.charAt(start) != '#') {
				if (!versioned) {
					if (!text.startsWith(VERSION_LINE, start) || end - start != VERSION_LINE.length()) {
						throw new IllegalArgumentException("no version 2 line");
					}
					versioned = true;
				}
				else {
					classLine(text, start, end, classes);
				}
			}
			start = end + 1;
		}
		if (!versioned) {
			throw new IllegalArgumentException("no version 2 line");
		}
		return classes;
	}

	private static void classLine(String text, int start, int end, Map<String, SourceChecks.ClassEntry> classes) {
		int space = text.indexOf(' ', start);
		if (space < 0 || space >= end) {
			throw new IllegalArgumentException("a class line without its class file entry");
		}
		String name = unescape(text.substring(start, space));
		if (!isClassName(name)) {
			throw new IllegalArgumentException("malformed class name " + name);
		}
		int next = text.indexOf(' ', space + 1);
		if (next < 0 || next > end) {
			next = end;
		}
		SourceChecks.ClassEntry entry = SourceChecks.ClassEntry.parse(name, text.substring(space + 1, next),
				SourceChecks.NOTHING);
		while (next < end) {
			int tokenEnd = text.indexOf(' ', next + 1);
			if (tokenEnd < 0 || tokenEnd > end) {
				tokenEnd = end;
			}
			method(name, text.substring(next + 1, tokenEnd), entry.methods());
			next = tokenEnd;
		}
		if (classes.put(name, entry) != null) {
			throw new IllegalArgumentException("two lines for " + name);
		}
	}

	/**
	 * Read {@code <name><descriptor>=<signals>[=<rejection names>]}.
	 */
	private static void method(String className, String token, Map<String, RecordedChecks.Checked> methods) {
		int signalsAt = token.indexOf('=');
		String method = (signalsAt > 0) ? unescape(token.substring(0, signalsAt)) : "";
		if (!isMethodKey(method)) {
			throw new IllegalArgumentException("malformed method " + token + " of " + className);
		}
		int namesAt = token.indexOf('=', signalsAt + 1);
		Set<Class<? extends HookSignal>> signals = new LinkedHashSet<>();
		for (String signal : list(token.substring(signalsAt + 1, (namesAt < 0) ? token.length() : namesAt))) {
			Class<? extends HookSignal> type = RecordedChecks.SIGNAL_TYPES.get(signal);
			if (type == null) {
				throw new IllegalArgumentException("unknown signal " + signal);
			}
			signals.add(type);
		}
		Set<String> names = new LinkedHashSet<>();
		if (namesAt >= 0) {
			for (String escaped : list(token.substring(namesAt + 1))) {
				names.add(unescape(escaped));
			}
		}
		if (methods.put(method, new RecordedChecks.Checked(signals, names)) != null) {
			throw new IllegalArgumentException("two entries for " + method + " of " + className);
		}
	}

	/**
	 * Split at commas, keeping empty parts (an empty rejection name is one).
	 */
	private static Set<String> list(String text) {
		Set<String> parts = new LinkedHashSet<>();
		int from = 0;
		while (true) {
			int comma = text.indexOf(',', from);
			parts.add(text.substring(from, (comma < 0) ? text.length() : comma));
			if (comma < 0) {
				return parts;
			}
			from = comma + 1;
		}
	}

	/**
	 * A binary name: not empty, no character the JVM or the format reserves.
	 */
	private static boolean isClassName(String name) {
		if (name.isEmpty() || name.charAt(0) == '.' || name.charAt(name.length() - 1) == '.') {
			return false;
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c <= ' ' || c == '/' || c == ';' || c == '[' || c == '(' || c == ')' || c == '#' || c == '='
					|| c == ',') {
				return false;
			}
		}
		return true;
	}

	/**
	 * A method name without {@code (}, then {@code (}, the parameters, {@code )} and at
	 * least one more character.
	 */
	private static boolean isMethodKey(String method) {
		int open = method.indexOf('(');
		int close = method.indexOf(')', open + 1);
		return open > 0 && close > open && close < method.length() - 1 && method.indexOf('#') < 0
				&& method.indexOf(' ') < 0;
	}

	/**
	 * Undo the {@code \}{@code uXXXX} escapes.
	 */
	static String unescape(String text) {
		int backslash = text.indexOf('\\');
		if (backslash < 0) {
			return text;
		}
		StringBuilder plain = new StringBuilder(text.length());
		int from = 0;
		while (backslash >= 0) {
			if (backslash + 6 > text.length() || text.charAt(backslash + 1) != 'u') {
				throw new IllegalArgumentException("malformed escape in " + text);
			}
			int value = 0;
			for (int i = backslash + 2; i < backslash + 6; i++) {
				int digit = Character.digit(text.charAt(i), 16);
				if (digit < 0) {
					throw new IllegalArgumentException("malformed escape in " + text);
				}
				value = value * 16 + digit;
			}
			plain.append(text, from, backslash).append((char) value);
			from = backslash + 6;
			backslash = text.indexOf('\\', from);
		}
		return plain.append(text, from, text.length()).toString();
	}

}
