package io.mantlehooks.runtime.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.mantlehooks.HookRejection;
import io.mantlehooks.HookSignal;
import io.mantlehooks.RetryModel;
import org.jspecify.annotations.Nullable;

import org.springframework.asm.Type;
import org.springframework.util.StringUtils;

/**
 * What the bytecode check found in each hook method, recorded at AOT build time for a
 * native image, which has no class files to read: the control signals the method (and its
 * lambdas) constructs and the literal response names it rejects with.
 */
final class RecordedChecks {

	/** Where the AOT build writes the records, and where the runtime looks for them. */
	static final String LOCATION = "META-INF/mantle-hooks/bytecode-checks.properties";

	private static final String SIGNALS = ".signals";

	private static final String NAMES = ".rejection-names";

	/**
	 * The signal types by class name, as the build-time records and the indexes name
	 * them.
	 */
	static final Map<String, Class<? extends HookSignal>> SIGNAL_TYPES = Map.of(RetryModel.class.getName(),
			RetryModel.class, HookRejection.class.getName(), HookRejection.class);

	private final Map<String, Checked> checked = new TreeMap<>();

	/**
	 * Record what a method's code holds.
	 */
	void record(Method method, Set<Class<? extends HookSignal>> signals, Set<String> rejectionNames) {
		this.checked.put(key(method), new Checked(signals, rejectionNames));
	}

	/**
	 * Return what was recorded for a method.
	 * @return the record, {@code null} when the method was not checked at build time
	 */
	@Nullable Checked find(Method method) {
		// nothing recorded (any start outside a native image): no descriptor to build
		return this.checked.isEmpty() ? null : this.checked.get(key(method));
	}

	boolean isEmpty() {
		return this.checked.isEmpty();
	}

	/**
	 * Write the records in the properties format {@link #load} reads.
	 */
	String write() {
		Properties properties = new Properties();
		this.checked.forEach((key, checked) -> {
			properties.setProperty(key + SIGNALS,
					checked.signals().stream().map(Class::getName).sorted().collect(Collectors.joining(",")));
			properties.setProperty(key + NAMES, String.join(",", checked.rejectionNames()));
		});
		StringWriter writer = new StringWriter();
		try {
			properties.store(writer, "mantle-hooks: what the AOT build found in each hook method's bytecode");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return writer.toString();
	}

	/**
	 * Load the records on the class path, if any.
	 * @param classLoader where to look
	 * @return the records, empty outside an AOT-built application
	 */
	static RecordedChecks load(@Nullable ClassLoader classLoader) {
		RecordedChecks recorded = new RecordedChecks();
		try {
			Enumeration<URL> resources = (classLoader != null) ? classLoader.getResources(LOCATION)
					: ClassLoader.getSystemResources(LOCATION);
			for (URL url : Collections.list(resources)) {
				Properties properties = new Properties();
				try (InputStream in = url.openStream()) {
					properties.load(in);
				}
				recorded.read(properties);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + LOCATION, ex);
		}
		return recorded;
	}

	void read(Properties properties) {
		for (String name : properties.stringPropertyNames()) {
			if (name.endsWith(SIGNALS)) {
				String key = name.substring(0, name.length() - SIGNALS.length());
				Set<Class<? extends HookSignal>> signals = new LinkedHashSet<>();
				for (String signal : split(properties.getProperty(name))) {
					Class<? extends HookSignal> type = SIGNAL_TYPES.get(signal);
					if (type != null) {
						signals.add(type);
					}
				}
				this.checked.put(key, new Checked(signals, split(properties.getProperty(key + NAMES, ""))));
			}
		}
	}

	private static Set<String> split(String value) {
		return Arrays.stream(StringUtils.commaDelimitedListToStringArray(value))
			.filter(StringUtils::hasText)
			.collect(Collectors.toCollection(LinkedHashSet::new));
	}

	private static String key(Method method) {
		return method.getDeclaringClass().getName() + "#" + method.getName() + Type.getMethodDescriptor(method);
	}

	/**
	 * What one method's code holds.
	 *
	 * @param signals the control signals it constructs
	 * @param rejectionNames the literal response names it rejects with
	 */
	record Checked(Set<Class<? extends HookSignal>> signals, Set<String> rejectionNames) {
	}

}
