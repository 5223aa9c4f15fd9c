package io.mantlehooks.processor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * The index file, format version 2: one line per hook class, its binary name, the size,
 * CRC32 and modification time of the class file the line describes, and each method that
 * constructs a control signal, by name and JVM descriptor, with the signals and the
 * constant rejection names; a method of the class not on its line constructs none. The
 * runtime reads it on a cold JVM, so the form is the smallest that says this: about one
 * short line per class, where version 1 had two properties keys per method.
 * <p>
 * <pre>
 * mantle-hooks.source-checks.version=2
 * demo.Hooks 1234,5f3a9c01,1733100000000
 * demo.Guard 2345,a1b2c3d,1733100000000 screen(Ldemo/In;)Ldemo/In;=io.mantlehooks.HookRejection=utter_no
 * </pre> Fields are separated by one space; a method is
 * {@code <name><descriptor>=<signals>[=<rejection names>]}, lists separated by commas.
 * Any character outside printable ASCII, and {@code \}, {@code ,}, {@code =}, is written
 * as {@code \}{@code uXXXX}, so the file is ASCII and a rejection name can hold anything
 * (identifiers and descriptors never hold the separators).
 */
final class SourceIndex {

	/** Where the index goes in the class output. */
	static final String LOCATION = "META-INF/mantle-hooks/source-checks.properties";

	/** The format version the runtime checks before it trusts anything in the file. */
	static final String VERSION_KEY = "mantle-hooks.source-checks.version";

	static final String VERSION = "2";

	/** The first line that is not a comment. */
	static final String VERSION_LINE = VERSION_KEY + "=" + VERSION;

	private SourceIndex() {
	}

	/**
	 * Write the index: this compilation's classes, plus the classes of an existing index
	 * that were not recompiled and whose class file is still the one it describes (a
	 * compiler that compiled only some sources leaves the others' entries valid). An
	 * existing index of another version, or one this cannot read, is replaced: its
	 * classes are checked from their class files until they are compiled again.
	 * @param indexFile the index file in the class output
	 * @param classOutput the class output directory
	 * @param analysed the classes with hook methods walked in this compilation
	 * @param generated the binary names of every class file javac wrote in it
	 */
	static void merge(Path indexFile, Path classOutput, Map<String, ClassChecks> analysed, Set<String> generated)
			throws IOException {
		Map<String, String> lines = new TreeMap<>();
		if (Files.isRegularFile(indexFile)) {
			keepValid(Files.readString(indexFile, StandardCharsets.ISO_8859_1), classOutput, generated, lines);
		}
		for (Map.Entry<String, ClassChecks> checked : analysed.entrySet()) {
			String className = checked.getKey();
			Path classFile = classFile(classOutput, className);
			if (!generated.contains(className) || !Files.isRegularFile(classFile)) {
				// not written by javac (an error): the file is not what was walked
				continue;
			}
			lines.put(className, line(className, fingerprint(classFile), checked.getValue().methods()));
		}
		if (lines.isEmpty() && !Files.exists(indexFile)) {
			return;
		}
		Files.createDirectories(indexFile.getParent());
		Files.writeString(indexFile, format(lines), StandardCharsets.ISO_8859_1);
	}

	/**
	 * Keep the lines of an existing version 2 index whose class was not recompiled now,
	 * still exists, and is still the class file the line describes.
	 */
	private static void keepValid(String existing, Path classOutput, Set<String> generated, Map<String, String> lines)
			throws IOException {
		boolean versioned = false;
		for (String line : existing.split("\n")) {
			if (line.isEmpty() || line.startsWith("#")) {
				continue;
			}
			if (!versioned) {
				if (!line.equals(VERSION_LINE)) {
					// another version, or not this processor's file: start afresh
					return;
				}
				versioned = true;
				continue;
			}
			int space = line.indexOf(' ');
			if (space <= 0) {
				continue;
			}
			int end = line.indexOf(' ', space + 1);
			String className = unescape(line.substring(0, space));
			String fingerprint = line.substring(space + 1, (end < 0) ? line.length() : end);
			if (className == null) {
				continue;
			}
			// recompiled now, deleted, or recompiled since without the processor
			Path classFile = classFile(classOutput, className);
			if (!generated.contains(className) && Files.isRegularFile(classFile)
					&& fingerprint(classFile).equals(fingerprint)) {
				lines.put(className, line);
			}
		}
	}

	static Path classFile(Path classOutput, String binaryName) {
		return classOutput.resolve(binaryName.replace('.', '/') + ".class");
	}

	/**
	 * Size, CRC32 (hex) and modification time (ms) of a class file: the runtime compares
	 * the CRC with a jar entry's and the time with a directory's file.
	 */
	static String fingerprint(Path classFile) throws IOException {
		byte[] bytes = Files.readAllBytes(classFile);
		CRC32 crc = new CRC32();
		crc.update(bytes);
		return bytes.length + "," + Long.toHexString(crc.getValue()) + ","
				+ Files.getLastModifiedTime(classFile).toMillis();
	}

	/**
	 * One class's line: only the methods that construct a signal are listed.
	 */
	static String line(String className, String fingerprint, Map<String, MethodScanner.Found> methods) {
		StringBuilder line = new StringBuilder(escape(className)).append(' ').append(fingerprint);
		new TreeMap<>(methods).forEach((method, found) -> {
			if (found.signals().isEmpty()) {
				return;
			}
			line.append(' ').append(escape(method)).append('=').append(String.join(",", found.signals()));
			if (!found.rejectionNames().isEmpty()) {
				line.append('=');
				String separator = "";
				for (String name : found.rejectionNames()) {
					line.append(separator).append(escape(name));
					separator = ",";
				}
			}
		});
		return line.toString();
	}

	static String escape(String text) {
		StringBuilder escaped = null;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			boolean plain = c > ' ' && c < 0x7f && c != '\\' && c != ',' && c != '=';
			if (!plain && escaped == null) {
				escaped = new StringBuilder(text.length() + 16).append(text, 0, i);
			}
			if (escaped != null) {
				if (plain) {
					escaped.append(c);
				}
				else {
					escaped.append(String.format("\\u%04x", (int) c));
				}
			}
		}
		return (escaped != null) ? escaped.toString() : text;
	}

	/**
	 * Undo {@link #escape(String)}, {@code null} for a malformed escape.
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
				return null;
			}
			try {
				plain.append(text, from, backslash)
					.append((char) Integer.parseInt(text.substring(backslash + 2, backslash + 6), 16));
			}
			catch (NumberFormatException ex) {
				return null;
			}
			from = backslash + 6;
			backslash = text.indexOf('\\', from);
		}
		return plain.append(text, from, text.length()).toString();
	}

	private static String format(Map<String, String> lines) {
		StringBuilder text = new StringBuilder();
		text.append("# mantle-hooks: control signals hook methods construct, found at compile time by\n");
		text.append("# mantle-hooks-processor. One line per hook class: binary name, class file size, CRC32\n");
		text.append("# and modification time (trusted at startup only for that class file), then each method\n");
		text.append("# that constructs a signal: <name><descriptor>=<signals>[=<rejection names>]. A method\n");
		text.append("# not listed constructs none.\n");
		text.append(VERSION_LINE).append('\n');
		lines.values().forEach((line) -> text.append(line).append('\n'));
		return text.toString();
	}

	/**
	 * The methods of one class, by name and JVM descriptor.
	 *
	 * @param methods what each method constructs
	 */
	record ClassChecks(Map<String, MethodScanner.Found> methods) {
	}

}
