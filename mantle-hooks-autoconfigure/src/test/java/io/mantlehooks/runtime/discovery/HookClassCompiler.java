package io.mantlehooks.runtime.discovery;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import javax.annotation.processing.Processor;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiles hook classes in-process with javac, with or without mantle-hooks-processor,
 * into a class output directory the tests load from with a class loader of its own, as an
 * application's build and start would. The processor is compiled from its module's
 * sources (it has no dependencies), so this module needs no build dependency on it and
 * still builds on its own.
 */
final class HookClassCompiler {

	private static final Path PROCESSOR_SOURCES = Path.of("../mantle-hooks-processor/src/main/java");

	private static URLClassLoader processorLoader;

	private final Path sources;

	private final Path classes;

	HookClassCompiler(Path directory) throws IOException {
		this.sources = Files.createDirectories(directory.resolve("src"));
		this.classes = Files.createDirectories(directory.resolve("classes"));
	}

	Path classes() {
		return this.classes;
	}

	Path index() {
		return this.classes.resolve(SourceChecks.LOCATION);
	}

	/**
	 * Compile sources given as text, by relative path.
	 */
	void compile(boolean withProcessor, Map<String, String> files) throws IOException {
		List<Path> paths = new ArrayList<>();
		for (Map.Entry<String, String> file : files.entrySet()) {
			Path path = this.sources.resolve(file.getKey());
			Files.createDirectories(path.getParent());
			Files.writeString(path, file.getValue());
			paths.add(path);
		}
		compile(withProcessor, paths);
	}

	/**
	 * Compile source files as they are.
	 */
	void compile(boolean withProcessor, List<Path> paths) throws IOException {
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		StringWriter diagnostics = new StringWriter();
		try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, null)) {
			Iterable<? extends JavaFileObject> units = fileManager.getJavaFileObjectsFromPaths(paths);
			List<String> options = new ArrayList<>(List.of("-d", this.classes.toString(), "-classpath",
					System.getProperty("java.class.path"), "--release", "17", "-parameters"));
			if (!withProcessor) {
				options.add("-proc:none");
			}
			JavaCompiler.CompilationTask task = javac.getTask(diagnostics, fileManager, null, options, null, units);
			task.setProcessors(withProcessor ? List.of(processor()) : List.of());
			assertThat(task.call()).as(diagnostics::toString).isTrue();
		}
	}

	private static synchronized Processor processor() throws IOException {
		if (processorLoader == null) {
			Path classes = Files.createTempDirectory("mantle-hooks-processor");
			List<Path> sources;
			try (Stream<Path> files = Files.walk(PROCESSOR_SOURCES)) {
				sources = files.filter((path) -> path.toString().endsWith(".java")).toList();
			}
			JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
			StringWriter diagnostics = new StringWriter();
			try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, null)) {
				boolean compiled = javac
					.getTask(diagnostics, fileManager, null,
							List.of("-d", classes.toString(), "--release", "17", "-proc:none"), null,
							fileManager.getJavaFileObjectsFromPaths(sources))
					.call();
				assertThat(compiled).as(diagnostics::toString).isTrue();
			}
			processorLoader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
					HookClassCompiler.class.getClassLoader());
		}
		try {
			return (Processor) processorLoader.loadClass("io.mantlehooks.processor.SignalIndexProcessor")
				.getConstructor()
				.newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Package the class output into a jar (compressed entries, as a build writes them).
	 */
	Path jar(Path jar) throws IOException {
		try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
				Stream<Path> files = Files.walk(this.classes)) {
			for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
				out.putNextEntry(new JarEntry(this.classes.relativize(file).toString().replace('\\', '/')));
				out.write(Files.readAllBytes(file));
				out.closeEntry();
			}
		}
		return jar;
	}

	/**
	 * A class loader that defines the compiled classes itself (not its parent, which may
	 * hold classes of the same name), as an application class loader would.
	 */
	URLClassLoader loader(Path... moreClassDirectories) {
		Path[] roots = Arrays.copyOf(moreClassDirectories, moreClassDirectories.length + 1);
		roots[moreClassDirectories.length] = this.classes;
		return loaderOf(roots);
	}

	/**
	 * A class loader like {@link #loader} over the given directories and jars.
	 */
	static URLClassLoader loaderOf(Path... roots) {
		List<URL> urls = new ArrayList<>();
		try {
			for (Path root : roots) {
				urls.add(root.toUri().toURL());
			}
		}
		catch (MalformedURLException ex) {
			throw new UncheckedIOException(ex);
		}
		return new ChildFirstClassLoader(urls.toArray(URL[]::new), HookClassCompiler.class.getClassLoader());
	}

	private static final class ChildFirstClassLoader extends URLClassLoader {

		ChildFirstClassLoader(URL[] urls, ClassLoader parent) {
			super(urls, parent);
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			synchronized (getClassLoadingLock(name)) {
				Class<?> type = findLoadedClass(name);
				if (type == null && findResource(name.replace('.', '/') + ".class") != null) {
					type = findClass(name);
				}
				if (type == null) {
					return super.loadClass(name, resolve);
				}
				if (resolve) {
					resolveClass(type);
				}
				return type;
			}
		}

	}

}
