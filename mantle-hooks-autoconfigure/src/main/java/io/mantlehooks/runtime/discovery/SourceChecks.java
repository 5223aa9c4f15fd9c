package io.mantlehooks.runtime.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.CodeSource;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import io.mantlehooks.HookSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.asm.Type;
import org.springframework.util.StringUtils;

/**
 * The compile-time index of {@code mantle-hooks-processor} ({@value #LOCATION}): what the
 * processor found in each hook method's source, trusted for a class only when the class
 * was loaded from the root (directory or jar) the index sits in and its class file there
 * is still the one the index describes. In a jar that is the entry's size and CRC32 from
 * the central directory (nothing is inflated); in a directory the file's size and
 * modification time (one {@code stat}, where a CRC would read the file). Anything else
 * falls back to reading the class file.
 * <p>
 * Two formats: version 2 ({@link IndexLines}, what the processor writes now) lists per
 * class only the methods that construct a signal, so a method of a covered class that is
 * not listed constructs none; version 1 (a properties file with two keys for every method
 * of each class, still read for jars built with an earlier processor) lists every method,
 * and a method it does not list is read from the class file.
 */
final class SourceChecks {

	/** Where the processor writes the index, relative to a class path root. */
	static final String LOCATION = "META-INF/mantle-hooks/source-checks.properties";

	private static final Log logger = LogFactory.getLog(SourceChecks.class);

	private static final String VERSION_KEY = "mantle-hooks.source-checks.version";

	private static final String CLASS_FILE = ".class-file";

	private static final String SIGNALS = ".signals";

	private static final String NAMES = ".rejection-names";

	/** What most methods construct: no signal, no rejection name. */
	static final RecordedChecks.Checked NOTHING = new RecordedChecks.Checked(Set.of(), Set.of());

	private static final SourceChecks NONE = new SourceChecks(Map.of());

	private final Map<String, Index> indexes;

	private final Map<Class<?>, Optional<ClassEntry>> classes = new ConcurrentHashMap<>();

	private final AtomicInteger covered = new AtomicInteger();

	private volatile @Nullable LastRoot lastRoot;

	private SourceChecks(Map<String, Index> indexes) {
		this.indexes = indexes;
	}

	/**
	 * No index: every class file is read.
	 */
	static SourceChecks none() {
		return NONE;
	}

	/**
	 * Load every index on the class path; a file that cannot be read or parsed is ignored
	 * with a warning, never trusted in part.
	 */
	static SourceChecks load(@Nullable ClassLoader classLoader) {
		Map<String, Index> indexes = new HashMap<>();
		try {
			List<URL> urls = Collections.list((classLoader != null) ? classLoader.getResources(LOCATION)
					: ClassLoader.getSystemResources(LOCATION));
			for (URL url : urls) {
				Index index = Index.read(url);
				if (index != null) {
					indexes.putIfAbsent(index.root().key(), index);
				}
			}
		}
		catch (IOException ex) {
			logger.warn("Could not list " + LOCATION + " on the class path; hook class files are read instead", ex);
		}
		return indexes.isEmpty() ? NONE : new SourceChecks(indexes);
	}

	/**
	 * Return what the index holds for a method, if its class is covered and unchanged.
	 * @return the checks, {@code null} when the class file has to be read
	 */
	RecordedChecks.@Nullable Checked find(Method method) {
		if (this.indexes.isEmpty()) {
			return null;
		}
		// no lambda: this runs for every hook on a cold JVM, where a lambda's first use
		// costs more than the lookup
		Class<?> type = method.getDeclaringClass();
		Optional<ClassEntry> entry = this.classes.get(type);
		if (entry == null) {
			entry = lookUp(type);
			Optional<ClassEntry> raced = this.classes.putIfAbsent(type, entry);
			if (raced != null) {
				entry = raced;
			}
			else if (entry.isPresent()) {
				this.covered.incrementAndGet();
			}
		}
		return entry.isPresent() ? entry.get().find(method) : null;
	}

	/**
	 * Return how many classes the index answered for so far.
	 */
	int coveredClasses() {
		return this.covered.get();
	}

	/**
	 * Forget the lookups and close the jars opened for them: the check runs once.
	 */
	void clear() {
		this.classes.clear();
		this.covered.set(0);
		this.lastRoot = null;
		this.indexes.values().forEach((index) -> index.root().close());
	}

	private Optional<ClassEntry> lookUp(Class<?> type) {
		CodeSource codeSource = type.getProtectionDomain().getCodeSource();
		String root = (codeSource != null && codeSource.getLocation() != null) ? rootKey(codeSource.getLocation())
				: null;
		Index index = (root != null) ? this.indexes.get(root) : null;
		ClassEntry entry = (index != null) ? index.classes().get(type.getName()) : null;
		if (entry == null || !index.root().holds(type.getName(), entry)) {
			return Optional.empty();
		}
		return Optional.of(entry);
	}

	/**
	 * The root key of a code source location: the hook classes of an application mostly
	 * share one location (the same object), whose key is worked out once.
	 */
	private @Nullable String rootKey(URL location) {
		LastRoot last = this.lastRoot;
		if (last != null && last.location() == location) {
			return last.key();
		}
		String key = Root.keyOf(location);
		this.lastRoot = new LastRoot(location, key);
		return key;
	}

	private record LastRoot(URL location, @Nullable String key) {
	}

	/**
	 * One index file and the root it was found in.
	 */
	private record Index(Root root, Map<String, ClassEntry> classes) {

		static @Nullable Index read(URL url) {
			try {
				Root root = Root.of(url);
				if (root == null) {
					logger.debug("Ignoring " + url + ": not in a directory or jar");
					return null;
				}
				byte[] bytes;
				try (InputStream in = url.openStream()) {
					bytes = in.readAllBytes();
				}
				return new Index(root,
						IndexLines.isVersion2(bytes) ? IndexLines.parse(bytes) : parse(IndexText.read(bytes)));
			}
			catch (IOException | IllegalArgumentException | URISyntaxException ex) {
				logger.warn("Ignoring the hook signal index " + url + " (" + ex.getMessage()
						+ "): its hook classes are checked from their class files. Rebuild to regenerate it.");
				return null;
			}
		}

		/**
		 * Check and read every entry of a version 1 index (a properties file; the form of
		 * jars built with an earlier processor). It describes every method of each hook
		 * class (thousands of keys in a large application), and this runs on a cold JVM:
		 * one pass per kind of key, checks by hand rather than by regular expression, and
		 * one shared result for the common method that constructs no signal.
		 */
		private static Map<String, ClassEntry> parse(Map<String, String> properties) {
			if (!"1".equals(properties.get(VERSION_KEY))) {
				throw new IllegalArgumentException("unknown format version " + properties.get(VERSION_KEY));
			}
			Map<String, ClassEntry> classes = new HashMap<>();
			for (Map.Entry<String, String> property : properties.entrySet()) {
				String key = property.getKey();
				if (isClassKey(key)) {
					String name = key.substring(0, key.length() - CLASS_FILE.length());
					classes.put(name, ClassEntry.parse(name, property.getValue(), null));
				}
			}
			// each method has two keys; it is read at its signals key, which finds its
			// names key: with as many names keys as signals keys, every names key is
			// then some method's, and no key is looked up twice
			int namesKeys = 0;
			int signalsKeys = 0;
			for (Map.Entry<String, String> property : properties.entrySet()) {
				String key = property.getKey();
				if (key.equals(VERSION_KEY) || isClassKey(key)) {
					continue;
				}
				if (key.endsWith(NAMES)) {
					namesKeys++;
					continue;
				}
				if (!key.endsWith(SIGNALS)) {
					throw new IllegalArgumentException("unexpected key " + key);
				}
				signalsKeys++;
				String method = key.substring(0, key.length() - SIGNALS.length());
				int hash = methodKeyHash(method);
				if (hash < 0) {
					throw new IllegalArgumentException("malformed method key " + key);
				}
				ClassEntry entry = classes.get(method.substring(0, hash));
				String namesValue = properties.get(method + NAMES);
				if (entry == null || namesValue == null) {
					throw new IllegalArgumentException("incomplete entry " + key);
				}
				Set<Class<? extends HookSignal>> constructed = signals(property.getValue());
				Set<String> names = split(namesValue);
				entry.methods()
					.put(method.substring(hash + 1), (constructed.isEmpty() && names.isEmpty()) ? NOTHING
							: new RecordedChecks.Checked(constructed, names));
			}
			if (namesKeys != signalsKeys) {
				throw new IllegalArgumentException("incomplete entries: " + namesKeys + " " + NAMES + " keys for "
						+ signalsKeys + " " + SIGNALS + " keys");
			}
			return classes;
		}

		private static boolean isClassKey(String key) {
			return key.endsWith(CLASS_FILE) && key.indexOf('#') < 0;
		}

		/**
		 * Return where the {@code #} of a method key
		 * ({@code <binary name>#<name>(<parameters>)<return>}) is, or -1 when the key has
		 * not that form: a class name and a method name without {@code #} or {@code (},
		 * then {@code (}, anything but {@code #}, a {@code )} and at least one more
		 * character.
		 */
		static int methodKeyHash(String method) {
			int hash = method.indexOf('#');
			int open = method.indexOf('(');
			if (hash <= 0 || open <= hash + 1 || method.indexOf('#', hash + 1) >= 0) {
				return -1;
			}
			int close = method.indexOf(')', open + 1);
			return (close > open && close < method.length() - 1) ? hash : -1;
		}

		private static Set<Class<? extends HookSignal>> signals(String value) {
			if (value.isEmpty()) {
				return Set.of();
			}
			Set<Class<? extends HookSignal>> signals = new LinkedHashSet<>();
			for (String name : split(value)) {
				Class<? extends HookSignal> type = RecordedChecks.SIGNAL_TYPES.get(name);
				if (type == null) {
					throw new IllegalArgumentException("unknown signal " + name);
				}
				signals.add(type);
			}
			return signals;
		}

		private static Set<String> split(String value) {
			if (value.isEmpty()) {
				return Set.of();
			}
			Set<String> parts = new LinkedHashSet<>();
			for (String part : StringUtils.commaDelimitedListToStringArray(value)) {
				if (StringUtils.hasText(part)) {
					parts.add(part);
				}
			}
			return parts;
		}

	}

	/**
	 * The class file an index entry describes, and what it says about its methods.
	 *
	 * @param size the class file's size
	 * @param crc its CRC32
	 * @param modified its modification time in ms
	 * @param methods what the listed methods construct, by name and descriptor
	 * @param unlisted what a method that is not listed constructs ({@link #NOTHING} in a
	 * version 2 index), {@code null} when its class file has to be read (version 1)
	 */
	record ClassEntry(long size, long crc, long modified, Map<String, RecordedChecks.Checked> methods,
			RecordedChecks.@Nullable Checked unlisted) {

		/**
		 * Return what a method of this class constructs, {@code null} when the class file
		 * has to be read.
		 */
		RecordedChecks.@Nullable Checked find(Method method) {
			if (this.methods.isEmpty()) {
				// most hook classes construct no signal: no descriptor to build
				return this.unlisted;
			}
			RecordedChecks.Checked checked = this.methods.get(method.getName() + Type.getMethodDescriptor(method));
			return (checked != null) ? checked : this.unlisted;
		}

		/**
		 * Read {@code <size>,<crc32 hex>,<mtime ms>}: up to 10 decimal digits, 1 to 8
		 * lower-case hex digits, an optionally negative number of up to 19 digits.
		 */
		static ClassEntry parse(String name, String value, RecordedChecks.@Nullable Checked unlisted) {
			int first = value.indexOf(',');
			int second = (first < 0) ? -1 : value.indexOf(',', first + 1);
			if (second < 0 || value.indexOf(',', second + 1) >= 0) {
				throw malformed(name);
			}
			String size = value.substring(0, first);
			String crc = value.substring(first + 1, second);
			String modified = value.substring(second + 1);
			String modifiedDigits = modified.startsWith("-") ? modified.substring(1) : modified;
			if (!digits(size, 10, false) || !digits(crc, 8, true) || !digits(modifiedDigits, 19, false)) {
				throw malformed(name);
			}
			try {
				return new ClassEntry(Long.parseLong(size), Long.parseLong(crc, 16), Long.parseLong(modified),
						new HashMap<>(), unlisted);
			}
			catch (NumberFormatException ex) {
				// 19 digits that overflow a long
				throw malformed(name);
			}
		}

		private static boolean digits(String text, int maxLength, boolean hex) {
			if (text.isEmpty() || text.length() > maxLength) {
				return false;
			}
			for (int i = 0; i < text.length(); i++) {
				char c = text.charAt(i);
				if (!((c >= '0' && c <= '9') || (hex && c >= 'a' && c <= 'f'))) {
					return false;
				}
			}
			return true;
		}

		private static IllegalArgumentException malformed(String name) {
			return new IllegalArgumentException("malformed class file entry for " + name);
		}

	}

	/**
	 * A class path root holding an index: a directory or a jar (also a jar nested in a
	 * Spring Boot archive).
	 */
	private abstract static class Root {

		abstract String key();

		/**
		 * Whether the root's class file of the class is the one the index describes.
		 */
		abstract boolean holds(String className, ClassEntry entry);

		void close() {
		}

		static @Nullable Root of(URL index) throws URISyntaxException {
			String spec = index.toString();
			if (!spec.endsWith(LOCATION)) {
				return null;
			}
			String root = spec.substring(0, spec.length() - LOCATION.length());
			if ("file".equals(index.getProtocol())) {
				return new DirectoryRoot(Path.of(new URI(root)));
			}
			if ("jar".equals(index.getProtocol()) && root.endsWith("!/")) {
				return new JarRoot(root, jarKey(root.substring("jar:".length(), root.length() - 2)));
			}
			return null;
		}

		/**
		 * The key of a class's code source location, as {@link #key()} of its root.
		 */
		static @Nullable String keyOf(URL location) {
			try {
				String spec = location.toString();
				if ("file".equals(location.getProtocol())) {
					Path path = Path.of(location.toURI()).toAbsolutePath().normalize();
					return spec.endsWith("/") ? "dir:" + path : jarKey(spec);
				}
				if ("jar".equals(location.getProtocol())) {
					String inner = spec.substring("jar:".length());
					return jarKey(inner.endsWith("!/") ? inner.substring(0, inner.length() - 2) : inner);
				}
			}
			catch (URISyntaxException | IllegalArgumentException ex) {
				logger.debug("Unexpected code source " + location, ex);
			}
			return null;
		}

		private static String jarKey(String jar) {
			if (jar.startsWith("file:")) {
				try {
					return "jar:" + Path.of(new URI(jar)).toAbsolutePath().normalize();
				}
				catch (URISyntaxException | IllegalArgumentException ex) {
					return "jar:" + jar;
				}
			}
			return "jar:" + jar;
		}

	}

	private static final class DirectoryRoot extends Root {

		private final Path directory;

		DirectoryRoot(Path directory) {
			this.directory = directory.toAbsolutePath().normalize();
		}

		@Override
		String key() {
			return "dir:" + this.directory;
		}

		@Override
		boolean holds(String className, ClassEntry entry) {
			try {
				BasicFileAttributes attributes = Files.readAttributes(
						this.directory.resolve(className.replace('.', '/') + ".class"), BasicFileAttributes.class);
				return attributes.size() == entry.size()
						&& attributes.lastModifiedTime().toMillis() == entry.modified();
			}
			catch (NoSuchFileException ex) {
				return false;
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Cannot stat the class file of " + className, ex);
				return false;
			}
		}

	}

	private static final class JarRoot extends Root {

		private final String url;

		private final String key;

		private @Nullable JarFile jar;

		private boolean opened;

		JarRoot(String url, String key) {
			this.url = url;
			this.key = key;
		}

		@Override
		String key() {
			return this.key;
		}

		@Override
		boolean holds(String className, ClassEntry entry) {
			try {
				JarFile jar = jar();
				JarEntry jarEntry = jar.getJarEntry(className.replace('.', '/') + ".class");
				// size and CRC come from the central directory: nothing is inflated
				return jarEntry != null && jarEntry.getSize() == entry.size() && jarEntry.getCrc() == entry.crc();
			}
			catch (IOException | URISyntaxException | RuntimeException ex) {
				logger.debug("Cannot read the jar entry of " + className, ex);
				return false;
			}
		}

		private synchronized JarFile jar() throws IOException, URISyntaxException {
			if (this.jar == null) {
				if (this.key.startsWith("jar:/")) {
					// a plain jar: opened here (only its central directory is read),
					// closed
					// after the check
					this.jar = new JarFile(this.key.substring("jar:".length()), false);
					this.opened = true;
				}
				else {
					// a nested jar (a Spring Boot archive): the URL handler's cached
					// file,
					// shared with the class loader, so not closed here
					URLConnection connection = new URI(this.url).toURL().openConnection();
					this.jar = ((JarURLConnection) connection).getJarFile();
				}
			}
			return this.jar;
		}

		@Override
		synchronized void close() {
			if (this.opened && this.jar != null) {
				try {
					this.jar.close();
				}
				catch (IOException ex) {
					logger.debug("Could not close " + this.key, ex);
				}
			}
			this.jar = null;
			this.opened = false;
		}

	}

}
