package io.mantlehooks.processor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * The index file: the same per-method keys as the AOT build's
 * {@code bytecode-checks.properties}, plus one {@code .class-file} entry per class with
 * the size, CRC32 and modification time of the class file the entries describe.
 */
final class SourceIndex {

	/** Where the index goes in the class output. */
	static final String LOCATION = "META-INF/mantle-hooks/source-checks.properties";

	/** The format version the runtime checks before it trusts anything in the file. */
	static final String VERSION_KEY = "mantle-hooks.source-checks.version";

	static final String VERSION = "1";

	static final String CLASS_FILE = ".class-file";

	private static final String SIGNALS = ".signals";

	private static final String NAMES = ".rejection-names";

	private SourceIndex() {
	}

	/**
	 * Write the index: this compilation's classes, plus the classes of an existing index
	 * that were not recompiled and whose class file is still the one it describes (a
	 * compiler that compiled only some sources leaves the others' entries valid).
	 * @param indexFile the index file in the class output
	 * @param classOutput the class output directory
	 * @param analysed the classes with hook methods walked in this compilation
	 * @param generated the binary names of every class file javac wrote in it
	 */
	static void merge(Path indexFile, Path classOutput, Map<String, ClassChecks> analysed, Set<String> generated)
			throws IOException {
		Map<String, String> entries = new TreeMap<>();
		if (Files.isRegularFile(indexFile)) {
			keepValid(read(indexFile), classOutput, generated, entries);
		}
		for (Map.Entry<String, ClassChecks> checked : analysed.entrySet()) {
			String className = checked.getKey();
			Path classFile = classFile(classOutput, className);
			if (!generated.contains(className) || !Files.isRegularFile(classFile)) {
				// not written by javac (an error): the file is not what was walked
				continue;
			}
			entries.put(className + CLASS_FILE, fingerprint(classFile));
			checked.getValue().methods().forEach((method, found) -> {
				entries.put(className + "#" + method + SIGNALS, String.join(",", found.signals()));
				entries.put(className + "#" + method + NAMES, String.join(",", found.rejectionNames()));
			});
		}
		if (entries.isEmpty() && !Files.exists(indexFile)) {
			return;
		}
		Files.createDirectories(indexFile.getParent());
		Files.writeString(indexFile, format(entries), StandardCharsets.ISO_8859_1);
	}

	private static void keepValid(Properties existing, Path classOutput, Set<String> generated,
			Map<String, String> entries) throws IOException {
		if (!VERSION.equals(existing.getProperty(VERSION_KEY))) {
			return;
		}
		Map<String, Boolean> keep = new TreeMap<>();
		for (String key : existing.stringPropertyNames()) {
			if (key.equals(VERSION_KEY)) {
				continue;
			}
			int hash = key.indexOf('#');
			String className = (hash >= 0) ? key.substring(0, hash)
					: key.endsWith(CLASS_FILE) ? key.substring(0, key.length() - CLASS_FILE.length()) : null;
			if (className == null) {
				continue;
			}
			Boolean kept = keep.get(className);
			if (kept == null) {
				// recompiled now, deleted, or recompiled since without the processor
				Path classFile = classFile(classOutput, className);
				kept = !generated.contains(className) && Files.isRegularFile(classFile)
						&& fingerprint(classFile).equals(existing.getProperty(className + CLASS_FILE));
				keep.put(className, kept);
			}
			if (kept) {
				entries.put(key, existing.getProperty(key));
			}
		}
	}

	private static Properties read(Path indexFile) throws IOException {
		Properties properties = new Properties();
		try (InputStream in = Files.newInputStream(indexFile)) {
			properties.load(in);
		}
		catch (IllegalArgumentException ex) {
			// garbled: start afresh
			properties.clear();
		}
		return properties;
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

	private static String format(Map<String, String> entries) {
		StringBuilder text = new StringBuilder();
		text.append("# mantle-hooks: control signals each hook method constructs, found at compile time\n");
		text.append("# by mantle-hooks-processor; trusted at startup only for the class files described\n");
		text.append(line(VERSION_KEY, VERSION));
		entries.forEach((key, value) -> text.append(line(key, value)));
		return text.toString();
	}

	private static String line(String key, String value) {
		// Properties' own escaping, one entry at a time, without its date comment, so the
		// file is sorted and reproducible
		Properties one = new Properties();
		one.setProperty(key, value);
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try {
			// the stream form escapes non-Latin-1 characters for Properties.load
			one.store(out, null);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		String stored = out.toString(StandardCharsets.ISO_8859_1);
		return stored.substring(stored.indexOf('\n') + 1).replace(System.lineSeparator(), "\n");
	}

	/**
	 * The methods of one class, by name and JVM descriptor.
	 *
	 * @param methods what each method constructs
	 */
	record ClassChecks(Map<String, MethodScanner.Found> methods) {
	}

}
