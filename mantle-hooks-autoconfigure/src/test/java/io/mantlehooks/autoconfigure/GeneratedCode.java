package io.mantlehooks.autoconfigure;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.InputStreamSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiles what an AOT build generated and loads it into the test's class loader, so the
 * application can be started from its generated initializer as {@code spring.aot.enabled}
 * would. Each generated class is defined in the package (and class loader) of the class
 * it was generated for, because generated code reaches package-private members.
 */
final class GeneratedCode {

	private GeneratedCode() {
	}

	/**
	 * Compile and load the generated code.
	 * @param files what the AOT build generated
	 * @param host a class in the package of the generated initializer
	 * @return the generated initializer
	 */
	@SuppressWarnings("unchecked")
	static ApplicationContextInitializer<GenericApplicationContext> load(InMemoryGeneratedFiles files, Class<?> host)
			throws Exception {
		Path root = Files.createTempDirectory("mantle-aot");
		Path sources = root.resolve("sources");
		Path classes = root.resolve("classes");
		List<String> arguments = new ArrayList<>(List.of("-proc:none", "-parameters", "-nowarn", "-d",
				classes.toString(), "-cp", System.getProperty("java.class.path")));
		String initializer = null;
		for (Map.Entry<String, InputStreamSource> source : files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE)
			.entrySet()) {
			Path file = sources.resolve(source.getKey());
			Files.createDirectories(file.getParent());
			Files.write(file, bytes(source.getValue()));
			arguments.add(file.toString());
			if (source.getKey().endsWith("__ApplicationContextInitializer.java")) {
				initializer = source.getKey().replace('/', '.').replace(".java", "");
			}
		}
		assertThat(initializer).as("generated initializer").isNotNull();
		for (Map.Entry<String, InputStreamSource> generated : files.getGeneratedFiles(GeneratedFiles.Kind.CLASS)
			.entrySet()) {
			Path file = classes.resolve(generated.getKey());
			Files.createDirectories(file.getParent());
			Files.write(file, bytes(generated.getValue()));
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		ByteArrayOutputStream errors = new ByteArrayOutputStream();
		int status = compiler.run(null, errors, errors, arguments.toArray(String[]::new));
		assertThat(status).as("javac of the generated code: %s", errors).isZero();
		List<Path> compiled;
		try (Stream<Path> walk = Files.walk(classes)) {
			// outer classes before their nested ones
			compiled = walk.filter((path) -> path.toString().endsWith(".class"))
				.sorted(Comparator.comparing((Path path) -> path.toString().length()))
				.toList();
		}
		for (Path file : compiled) {
			String name = classes.relativize(file).toString().replace(".class", "").replace('/', '.');
			MethodHandles.privateLookupIn(hostOf(name, host), MethodHandles.lookup())
				.defineClass(Files.readAllBytes(file));
		}
		return (ApplicationContextInitializer<GenericApplicationContext>) Class
			.forName(initializer, true, host.getClassLoader())
			.getDeclaredConstructor()
			.newInstance();
	}

	/**
	 * The class a generated class was made for: its name up to {@code __} or {@code $$};
	 * the fallback host for the initializer.
	 */
	private static Class<?> hostOf(String generated, Class<?> fallback) throws ClassNotFoundException {
		int end = generated.length();
		for (String marker : new String[] { "__", "$$" }) {
			int index = generated.indexOf(marker);
			if (index > 0) {
				end = Math.min(end, index);
			}
		}
		String owner = generated.substring(0, end);
		try {
			return Class.forName(owner, false, fallback.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			assertThat(fallback.getPackageName()).as("package of " + generated)
				.isEqualTo(generated.substring(0, generated.lastIndexOf('.')));
			return fallback;
		}
	}

	private static byte[] bytes(InputStreamSource source) throws IOException {
		try (InputStream in = source.getInputStream()) {
			return in.readAllBytes();
		}
	}

}
