package io.mantlehooks.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import javax.annotation.processing.Processor;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

import com.sun.management.OperatingSystemMXBean;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.runtime.HookRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.metrics.ApplicationStartup;
import org.springframework.core.metrics.StartupStep;

/**
 * What 1,000 hook beans add to a cold start: every start is a fresh JVM. Compiles (once,
 * cached under {@code target/cold-start}) 1,000 bean classes with an
 * {@code @OnModelRequest} method each plus one modify hook class per modify point, the
 * same classes without the annotations, and the annotated ones again with
 * {@code mantle-hooks-processor} on the compile (its signal index in the jar), as three
 * jars. Then, per JDK, starts {@code runs} fresh JVMs per variant, interleaved (plain,
 * hooks, hooks+index, plain...), each
 * running an application with the benchmark's auto-configurations and a stub model that
 * registers the beans by class name (no component scan); the jar is first on the child's
 * class path, before the benchmark's own. A child prints the time from its
 * JVM's start to the context being ready, the context refresh, and the hook processor's
 * own time (its {@code SmartInitializingSingleton} callback, from Spring's startup
 * steps); it fails unless it found exactly the hooks its jar declares (and, with the
 * index, unless the index answered for every hook class). The parent prints
 * the medians per JDK and variant and what the hooks add.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.ColdStartupCost
 * -Dbench.args="1000 7 /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
 */
public final class ColdStartupCost {

	private static final String CHILD = "--child";

	private static final String PACKAGE = "io.mantlehooks.bench.cold";

	/** The bean classes of a jar, one binary name a line. */
	private static final String INDEX = "META-INF/mantle-hooks-bench/cold-beans.txt";

	private static final String RESULT = "COLD-START ";

	private static final String PROCESSOR_BEAN = "mantleHookMethodProcessor";

	/** Where the compile-time index sits in a jar (SourceChecks.LOCATION). */
	private static final String SOURCE_CHECKS = "META-INF/mantle-hooks/source-checks.properties";

	/** SignalUsageInspector's DEBUG line when the index answered for every hook class. */
	private static final String INDEX_USED = "Hook signal check: %d hook classes from the compile-time index ("
			+ SOURCE_CHECKS + "), 0 class files read";

	/** The processor's sources, from this module's directory (where the benchmark runs). */
	private static final Path PROCESSOR_SOURCES = Path.of("..", "mantle-hooks-processor", "src", "main", "java");

	private ColdStartupCost() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && CHILD.equals(args[0])) {
			Child.run(Integer.parseInt(args[1]), Variant.valueOf(args[2]));
			return;
		}
		if (args.length < 3) {
			throw new IllegalArgumentException("Usage: ColdStartupCost <beans> <runs> <javaHome>...");
		}
		int beans = Integer.parseInt(args[0]);
		int runs = Integer.parseInt(args[1]);
		List<Path> homes = Arrays.stream(args, 2, args.length).map(Path::of).toList();
		Path dir = Path.of("target", "cold-start");
		Map<Variant, Path> jars = new EnumMap<>(Variant.class);
		for (Variant variant : Variant.values()) {
			jars.put(variant, Jars.jar(dir, beans, variant));
		}
		Map<String, String> summary = new LinkedHashMap<>();
		for (Path home : homes) {
			Map<Variant, List<Sample>> samples = new EnumMap<>(Variant.class);
			for (int i = 0; i < runs; i++) {
				StringBuilder line = new StringBuilder(home.getFileName() + " run " + (i + 1) + ":");
				// interleaved, so a change of the machine's load hits every variant alike
				for (Variant variant : Variant.values()) {
					Sample sample = start(home, jars.get(variant), beans, variant);
					samples.computeIfAbsent(variant, (key) -> new ArrayList<>()).add(sample);
					line.append(" | ").append(variant.label).append(' ').append(sample);
				}
				System.out.println(line);
			}
			summary.put(home.getFileName().toString(), summarize(samples));
		}
		System.out.printf("%n%d beans with an @OnModelRequest hook each + %d modify hooks, %d fresh JVMs per variant "
				+ "(hooks: compiled without the index, hooks+index: with mantle-hooks-processor):%n", beans,
				modifyPoints().size(), runs);
		summary.forEach((jdk, line) -> System.out.println(jdk + ": " + line));
	}

	private static String summarize(Map<Variant, List<Sample>> samples) {
		StringBuilder line = new StringBuilder();
		line.append(compare("JVM start to ready", samples, Sample::ready, true));
		line.append(compare("\n  process CPU to ready", samples, Sample::processCpu, true));
		line.append(compare("\n  main thread CPU to ready", samples, Sample::mainCpu, true));
		line.append(compare("\n  refresh", samples, Sample::refresh, false));
		line.append(compare("\n  hook processor", samples, Sample::processor, false));
		line.append(compare("\n  hook processor CPU", samples, Sample::processorCpu, false));
		return line.toString();
	}

	private static String compare(String what, Map<Variant, List<Sample>> samples, ToDoubleFunction<Sample> value,
			boolean ratio) {
		double plainMs = median(samples.get(Variant.PLAIN).stream().mapToDouble(value).toArray());
		StringBuilder line = new StringBuilder(String.format("%s: plain %.0f ms", what, plainMs));
		for (Variant variant : Variant.values()) {
			if (variant != Variant.PLAIN) {
				double ms = median(samples.get(variant).stream().mapToDouble(value).toArray());
				line.append(String.format("; %s %.0f ms, added %.0f ms", variant.label, ms, ms - plainMs))
					.append(ratio ? String.format(" (x%.2f)", ms / plainMs) : "");
			}
		}
		return line.toString();
	}

	private static double median(double[] values) {
		Arrays.sort(values);
		int middle = values.length / 2;
		return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2;
	}

	private static Sample start(Path home, Path jar, int beans, Variant variant)
			throws IOException, InterruptedException {
		// the application's classes first, as Boot's launcher (BOOT-INF/classes) and a
		// build's run goals put them: the bytecode check looks each hook class up as a
		// resource, and a class loader probes every jar before the one that has it
		String classPath = jar.toAbsolutePath() + java.io.File.pathSeparator + System.getProperty("java.class.path");
		List<String> command = List.of(home.resolve("bin").resolve("java").toString(), "-cp", classPath,
				ColdStartupCost.class.getName(), CHILD, Integer.toString(beans), variant.name());
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		List<String> output = new ArrayList<>();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			reader.lines().forEach(output::add);
		}
		int exit = process.waitFor();
		String result = output.stream().filter((line) -> line.startsWith(RESULT)).findFirst().orElse(null);
		if (exit != 0 || result == null) {
			throw new IllegalStateException("Child on " + home + " (" + variant.label + ") exited with " + exit + ":\n"
					+ String.join("\n", output));
		}
		// the index must have answered for every hook class, or the variant measures
		// the class-file read again
		String indexUsed = String.format(INDEX_USED, beans + modifyPoints().size());
		if (variant == Variant.INDEXED && output.stream().noneMatch((line) -> line.contains(indexUsed))) {
			throw new IllegalStateException("Child on " + home + " did not use the compile-time index for all "
					+ "hook classes (expected '" + indexUsed + "'):\n" + String.join("\n", output));
		}
		double[] fields = Arrays.stream(result.substring(RESULT.length()).trim().split(" "))
			.mapToDouble(Double::parseDouble)
			.toArray();
		return new Sample(fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]);
	}

	/**
	 * What the child's class path holds: the same 1,008 classes without annotations, with
	 * them, and with them compiled with {@code mantle-hooks-processor} (its
	 * {@code source-checks.properties} in the jar).
	 */
	enum Variant {

		PLAIN("plain", false), HOOKS("hooks", true), INDEXED("hooks+index", true);

		final String label;

		final boolean hooks;

		Variant(String label, boolean hooks) {
			this.label = label;
			this.hooks = hooks;
		}

	}

	static List<HookPoint> modifyPoints() {
		return Arrays.stream(HookPoint.values()).filter(HookPoint::hasModifyLane).toList();
	}

	/**
	 * One start's times in milliseconds.
	 *
	 * @param ready JVM start to context ready, elapsed
	 * @param processCpu CPU time of the whole JVM (JIT and GC included) to context ready
	 * @param mainCpu CPU time of the starting thread to context ready
	 * @param refresh the context refresh, elapsed
	 * @param processor the hook processor's {@code afterSingletonsInstantiated}, elapsed
	 * @param processorCpu the same in the starting thread's CPU time
	 */
	record Sample(double ready, double processCpu, double mainCpu, double refresh, double processor,
			double processorCpu) {

		@Override
		public String toString() {
			return String.format("ready %.0f (CPU %.0f, main %.0f), refresh %.0f, processor %.0f (CPU %.0f) ms",
					this.ready, this.processCpu, this.mainCpu, this.refresh, this.processor, this.processorCpu);
		}

	}

	/**
	 * One cold start, in the child JVM.
	 */
	static final class Child {

		private Child() {
		}

		static void run(int beans, Variant variant) throws IOException {
			boolean hooks = variant.hooks;
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			OperatingSystemMXBean system = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
			List<String> classes = index();
			if (classes.size() != beans + modifyPoints().size()) {
				throw new IllegalStateException("The jar on the class path has " + classes.size() + " classes");
			}
			TimedSteps steps = new TimedSteps(threads);
			ChatModel model = new BenchModels.Instant();
			ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchApplication.class,
					BenchApplication.Observed.class)
				.web(WebApplicationType.NONE)
				.bannerMode(Banner.Mode.OFF)
				// logging as an application has it by default (INFO, the startup lines
				// first): the JVM's first log event is not the hook processor's
				.applicationStartup(steps)
				.properties("logging.level.root=info",
						// one line at the end of validation: how many classes the index covered
						"logging.level.io.mantlehooks.runtime.SignalUsageInspector="
								+ ((variant == Variant.INDEXED) ? "debug" : "warn"))
				.initializers((initialized) -> {
					GenericApplicationContext generic = (GenericApplicationContext) initialized;
					generic.registerBean("chatModel", ChatModel.class, () -> model);
					// by class name, as a scan would: the class loads when the bean is made
					for (int i = 0; i < classes.size(); i++) {
						generic.registerBeanDefinition("coldBean" + i,
								BeanDefinitionBuilder.genericBeanDefinition(classes.get(i)).getBeanDefinition());
					}
				})
				.run();
			long ready = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
			long processCpu = system.getProcessCpuTime();
			long mainCpu = threads.getCurrentThreadCpuTime();
			try (context) {
				HookRegistry.HookSet found = context.getBean(HookRegistry.class).everyAgent();
				int observers = found.observers(HookPoint.MODEL_REQUEST).size();
				long modifiers = modifyPoints().stream().filter((point) -> found.modifier(point) != null).count();
				int expected = hooks ? beans + modifyPoints().size() : 0;
				if (observers != (hooks ? beans : 0) || modifiers != (hooks ? modifyPoints().size() : 0)
						|| found.hooks().size() != expected) {
					throw new IllegalStateException("Found " + observers + " observers and " + modifiers
							+ " modify hooks (" + found.hooks().size() + " hooks), expected " + expected);
				}
				if (steps.refreshNanos < 0 || steps.processorNanos < 0) {
					throw new IllegalStateException("No startup step for the refresh or the hook processor");
				}
				System.out.printf("%s%d %.1f %.1f %.1f %.1f %.1f%n", RESULT, ready, processCpu / 1e6, mainCpu / 1e6,
						steps.refreshNanos / 1e6, steps.processorNanos / 1e6, steps.processorCpuNanos / 1e6);
			}
		}

		private static List<String> index() throws IOException {
			try (InputStream in = ColdStartupCost.class.getClassLoader().getResourceAsStream(INDEX)) {
				if (in == null) {
					throw new IllegalStateException("No " + INDEX + " on the class path");
				}
				return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
			}
		}

	}

	/**
	 * Times the context refresh and the hook processor's
	 * {@code SmartInitializingSingleton} callback (Spring's
	 * {@code spring.beans.smart-initialize} step, tagged with the bean's name), in elapsed
	 * time and in the starting thread's CPU time; every other step is Spring's no-op one.
	 */
	static final class TimedSteps implements ApplicationStartup {

		private static final String REFRESH = "spring.context.refresh";

		private static final String SMART_INITIALIZE = "spring.beans.smart-initialize";

		private final ThreadMXBean threads;

		private final AtomicLong ids = new AtomicLong();

		long refreshNanos = -1;

		long processorNanos = -1;

		long processorCpuNanos = -1;

		TimedSteps(ThreadMXBean threads) {
			this.threads = threads;
		}

		@Override
		public StartupStep start(String name) {
			if (!name.equals(REFRESH) && !name.equals(SMART_INITIALIZE)) {
				return ApplicationStartup.DEFAULT.start(name);
			}
			return new Step(name);
		}

		private final class Step implements StartupStep {

			private final String name;

			private final long id = TimedSteps.this.ids.incrementAndGet();

			private final long startNanos = System.nanoTime();

			private final long startCpuNanos = TimedSteps.this.threads.getCurrentThreadCpuTime();

			private @Nullable String beanName;

			Step(String name) {
				this.name = name;
			}

			@Override
			public String getName() {
				return this.name;
			}

			@Override
			public long getId() {
				return this.id;
			}

			@Override
			public @Nullable Long getParentId() {
				return null;
			}

			@Override
			public StartupStep tag(String key, String value) {
				if (key.equals("beanName")) {
					this.beanName = value;
				}
				return this;
			}

			@Override
			public StartupStep tag(String key, Supplier<String> value) {
				return tag(key, value.get());
			}

			@Override
			public Tags getTags() {
				return Collections::emptyIterator;
			}

			@Override
			public void end() {
				long elapsed = System.nanoTime() - this.startNanos;
				if (this.name.equals(REFRESH)) {
					TimedSteps.this.refreshNanos = elapsed;
				}
				else if (PROCESSOR_BEAN.equals(this.beanName)) {
					TimedSteps.this.processorNanos = elapsed;
					TimedSteps.this.processorCpuNanos = TimedSteps.this.threads.getCurrentThreadCpuTime()
							- this.startCpuNanos;
				}
			}

		}

	}

	/**
	 * Compiles the bean classes with {@code javax.tools} and packs them as a jar, once per
	 * bean count and variant.
	 */
	static final class Jars {

		private Jars() {
		}

		static Path jar(Path dir, int beans, Variant variant) throws IOException {
			boolean hooks = variant.hooks;
			Path jar = dir.resolve(variant.name().toLowerCase(Locale.ROOT) + "-" + beans + ".jar");
			if (Files.exists(jar)) {
				return jar;
			}
			Files.createDirectories(dir);
			Path classes = Files.createTempDirectory(dir, "classes");
			List<JavaFileObject> sources = new ArrayList<>();
			List<String> names = new ArrayList<>();
			for (int i = 0; i < beans; i++) {
				String name = "ObserverBean" + i;
				names.add(PACKAGE + "." + name);
				sources.add(new Source(name, observer(name, hooks)));
			}
			for (HookPoint point : modifyPoints()) {
				String name = point.modifyAnnotation().getSimpleName() + "Hook";
				names.add(PACKAGE + "." + name);
				sources.add(new Source(name, modifier(name, point, hooks)));
			}
			Path processorClasses = (variant == Variant.INDEXED) ? Files.createTempDirectory(dir, "processor") : null;
			compile(sources, classes, (processorClasses != null) ? processor(processorClasses) : null);
			Path partial = dir.resolve(jar.getFileName() + ".part");
			write(partial, classes, names);
			Files.move(partial, jar, StandardCopyOption.REPLACE_EXISTING);
			delete(classes);
			if (processorClasses != null) {
				delete(processorClasses);
			}
			return jar;
		}

		private static void delete(Path directory) throws IOException {
			try (Stream<Path> files = Files.walk(directory)) {
				files.sorted((a, b) -> b.compareTo(a)).forEach((file) -> file.toFile().delete());
			}
		}

		/** The shape of {@link StartupCost}'s generated beans, as source. */
		private static String observer(String name, boolean hooks) {
			return "package " + PACKAGE + ";\n\npublic class " + name + " {\n\n" + plainMethods(name)
					+ (hooks ? "\t@" + OnModelRequest.class.getName() + "\n" : "") + "\tpublic void observe("
					+ ModelRequestPayload.class.getName() + " payload) {\n\t}\n\n}\n";
		}

		private static String modifier(String name, HookPoint point, boolean hooks) {
			String payload = point.payloadType().getName();
			return "package " + PACKAGE + ";\n\npublic class " + name + " {\n\n" + plainMethods(name)
					+ (hooks ? "\t@" + point.modifyAnnotation().getName() + "\n" : "") + "\tpublic " + payload
					+ " modify(" + payload + " payload) {\n\t\treturn payload;\n\t}\n\n}\n";
		}

		private static String plainMethods(String name) {
			StringBuilder methods = new StringBuilder("\tpublic " + name + "() {\n\t}\n\n");
			for (String plain : new String[] { "first", "second", "third" }) {
				methods.append("\tpublic String ")
					.append(plain)
					.append("() {\n\t\treturn \"")
					.append(plain)
					.append("\";\n\t}\n\n");
			}
			return methods.toString();
		}

		private static void compile(List<JavaFileObject> sources, Path classes, @Nullable Processor processor)
				throws IOException {
			JavaCompiler compiler = compiler();
			try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
				files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
				// as Boot's build plugins compile an application
				List<String> options = new ArrayList<>(List.of("--release", "17", "-g", "-parameters", "-classpath",
						System.getProperty("java.class.path")));
				if (processor == null) {
					options.add("-proc:none");
				}
				JavaCompiler.CompilationTask task = compiler.getTask(null, files, null, options, null, sources);
				task.setProcessors((processor != null) ? List.of(processor) : List.of());
				if (!task.call()) {
					throw new IllegalStateException("Could not compile the generated bean classes");
				}
			}
		}

		/**
		 * mantle-hooks-processor, compiled from its module's sources (it has no
		 * dependencies), so the benchmark needs no build dependency on the module.
		 */
		private static Processor processor(Path classes) throws IOException {
			List<Path> sources;
			try (Stream<Path> files = Files.walk(PROCESSOR_SOURCES)) {
				sources = files.filter((path) -> path.toString().endsWith(".java")).toList();
			}
			JavaCompiler compiler = compiler();
			try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
				if (!compiler
					.getTask(null, files, null, List.of("-d", classes.toString(), "--release", "17", "-proc:none"), null,
							files.getJavaFileObjectsFromPaths(sources))
					.call()) {
					throw new IllegalStateException("Could not compile mantle-hooks-processor from " + PROCESSOR_SOURCES);
				}
			}
			try {
				URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
						ColdStartupCost.class.getClassLoader());
				return (Processor) loader.loadClass("io.mantlehooks.processor.SignalIndexProcessor")
					.getConstructor()
					.newInstance();
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private static JavaCompiler compiler() {
			JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
			if (compiler == null) {
				throw new IllegalStateException("No Java compiler: run the benchmark on a JDK");
			}
			return compiler;
		}

		private static void write(Path jar, Path classes, List<String> names) throws IOException {
			Manifest manifest = new Manifest();
			manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
			try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
				out.putNextEntry(new JarEntry(INDEX));
				out.write(String.join("\n", names).getBytes(StandardCharsets.UTF_8));
				out.closeEntry();
				// what mantle-hooks-processor wrote, where a build's jar has it
				Path sourceChecks = classes.resolve(SOURCE_CHECKS);
				if (Files.exists(sourceChecks)) {
					out.putNextEntry(new JarEntry(SOURCE_CHECKS));
					copy(sourceChecks, out);
					out.closeEntry();
				}
				for (String name : names) {
					String entry = name.replace('.', '/') + ".class";
					out.putNextEntry(new JarEntry(entry));
					copy(classes.resolve(entry), out);
					out.closeEntry();
				}
			}
		}

		private static void copy(Path file, OutputStream out) {
			try {
				Files.copy(file, out);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

	/**
	 * A generated source file in memory.
	 */
	private static final class Source extends SimpleJavaFileObject {

		private final String code;

		Source(String simpleName, String code) {
			super(URI.create("string:///" + PACKAGE.replace('.', '/') + "/" + simpleName + Kind.SOURCE.extension),
					Kind.SOURCE);
			this.code = code;
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.code;
		}

	}

}
