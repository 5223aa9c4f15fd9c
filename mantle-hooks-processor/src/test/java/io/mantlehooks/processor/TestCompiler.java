package io.mantlehooks.processor;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiles sources in-process with the JDK's javac, as a build does, with stand-ins of
 * the starter's signal and hook annotation types (the processor knows them by name).
 */
final class TestCompiler {

	static final Map<String, String> STARTER_TYPES = Map.of("io/mantlehooks/HookRejection.java", """
			package io.mantlehooks;
			public class HookRejection extends RuntimeException {
				public HookRejection(String reason) { super(reason); }
				public HookRejection(String reason, @Nullable String responseMessage) { super(reason); }
			}
			""", "io/mantlehooks/Nullable.java", """
			package io.mantlehooks;
			import java.lang.annotation.*;
			@Target(ElementType.TYPE_USE)
			@Retention(RetentionPolicy.RUNTIME)
			public @interface Nullable { }
			""", "io/mantlehooks/RetryModel.java", """
			package io.mantlehooks;
			public class RetryModel extends RuntimeException {
				public RetryModel(String feedback) { super(feedback); }
			}
			""", "io/mantlehooks/annotation/ModifyIncomingMessage.java", """
			package io.mantlehooks.annotation;
			import java.lang.annotation.*;
			@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
			@Retention(RetentionPolicy.RUNTIME)
			public @interface ModifyIncomingMessage { }
			""", "io/mantlehooks/annotation/OnTurnStarted.java", """
			package io.mantlehooks.annotation;
			import java.lang.annotation.*;
			@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
			@Retention(RetentionPolicy.RUNTIME)
			public @interface OnTurnStarted { }
			""");

	private final Path sources;

	private final Path classes;

	TestCompiler(Path directory) throws IOException {
		this.sources = Files.createDirectories(directory.resolve("src"));
		this.classes = Files.createDirectories(directory.resolve("classes"));
		compile(false, STARTER_TYPES);
	}

	Path classes() {
		return this.classes;
	}

	/**
	 * Compile the given sources (relative path to text) into the class output.
	 */
	void compile(boolean withProcessor, Map<String, String> files) throws IOException {
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		List<Path> paths = new ArrayList<>();
		for (Map.Entry<String, String> file : files.entrySet()) {
			Path path = this.sources.resolve(file.getKey());
			Files.createDirectories(path.getParent());
			Files.writeString(path, file.getValue());
			paths.add(path);
		}
		StringWriter diagnostics = new StringWriter();
		try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, null)) {
			Iterable<? extends JavaFileObject> units = fileManager.getJavaFileObjectsFromPaths(paths);
			List<String> options = new ArrayList<>(
					List.of("-d", this.classes.toString(), "-classpath", this.classes.toString(), "--release", "17"));
			if (!withProcessor) {
				options.add("-proc:none");
			}
			JavaCompiler.CompilationTask task = javac.getTask(diagnostics, fileManager, null, options, null, units);
			if (withProcessor) {
				task.setProcessors(List.of(new SignalIndexProcessor()));
			}
			assertThat(task.call()).as(diagnostics::toString).isTrue();
		}
	}

	Path index() {
		return this.classes.resolve(SourceIndex.LOCATION);
	}

	/**
	 * Read the index's class lines: the binary name (first field) to the rest of the
	 * line.
	 */
	Map<String, String> readIndex() throws IOException {
		String text = Files.readString(index(), StandardCharsets.US_ASCII);
		List<String> lines = text.lines().filter((line) -> !line.startsWith("#")).toList();
		assertThat(lines).first().isEqualTo(SourceIndex.VERSION_LINE);
		Map<String, String> classes = new LinkedHashMap<>();
		for (String line : lines.subList(1, lines.size())) {
			int space = line.indexOf(' ');
			assertThat(classes.put(SourceIndex.unescape(line.substring(0, space)), line.substring(space + 1))).isNull();
		}
		return classes;
	}

	/**
	 * The fingerprint of a class file as the index writes it.
	 */
	String fingerprint(String binaryName) throws IOException {
		Path classFile = this.classes.resolve(binaryName.replace('.', '/') + ".class");
		byte[] bytes = Files.readAllBytes(classFile);
		CRC32 crc = new CRC32();
		crc.update(bytes);
		return bytes.length + "," + Long.toHexString(crc.getValue()) + ","
				+ Files.getLastModifiedTime(classFile).toMillis();
	}

}
