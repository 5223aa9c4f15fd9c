package io.mantlehooks.runtime;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runner needs no Spring AI: it runs in a class loader without any Spring AI jar, and
 * none of its classes names Spring AI (model-request messages are frozen by the payload,
 * not copied by the runner). The deprecated {@code JsonParser} of Spring AI is used
 * nowhere.
 */
class RuntimeIsolationTests {

	private static final Path MAIN_CLASSES = Path.of("target/classes/io/mantlehooks");

	@Test
	void runnerDiscoversAndRunsHooksAtEveryPointWithoutSpringAiOnTheClassPath() throws Exception {
		List<URL> urls = new ArrayList<>();
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			if (!new File(entry).getName().startsWith("spring-ai-")) {
				urls.add(new File(entry).toURI().toURL());
			}
		}
		try (URLClassLoader isolated = new URLClassLoader(urls.toArray(URL[]::new),
				ClassLoader.getPlatformClassLoader())) {
			assertThat(isolated.getResource("org/springframework/ai/chat/messages/Message.class")).isNull();
			Class<?> runtime = isolated.loadClass(IsolatedRuntime.class.getName());
			Method run = runtime.getMethod("run");
			Thread thread = Thread.currentThread();
			ClassLoader previous = thread.getContextClassLoader();
			thread.setContextClassLoader(isolated);
			List<Object> results;
			try {
				results = List.copyOf((List<?>) run.invoke(null));
			}
			finally {
				thread.setContextClassLoader(previous);
			}
			assertThat(results).containsExactly("incoming-message proceeded sender",
					"model-request proceeded temperature=0.1", "model-response proceeded sender",
					"tool-call proceeded sender", "tool-result proceeded sender", "knowledge-query proceeded sender",
					"knowledge-results proceeded sender", "outgoing-text proceeded sender");
		}
	}

	@Test
	void runtimeClassesNameNoSpringAi() throws IOException {
		try (Stream<Path> classes = Files.walk(MAIN_CLASSES.resolve("runtime"))) {
			List<String> offenders = classes.filter((file) -> file.toString().endsWith(".class"))
				.filter((file) -> contains(file, "org/springframework/ai/"))
				.map((file) -> file.getFileName().toString())
				.toList();
			assertThat(offenders).isEmpty();
		}
	}

	@Test
	void noClassUsesSpringAisDeprecatedJsonParser() throws IOException {
		try (Stream<Path> classes = Files.walk(MAIN_CLASSES)) {
			assertThat(classes.filter((file) -> file.toString().endsWith(".class"))
				.filter((file) -> contains(file, "org/springframework/ai/util/json/JsonParser"))
				.toList()).isEmpty();
		}
	}

	private static boolean contains(Path classFile, String name) {
		try {
			return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains(name);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
