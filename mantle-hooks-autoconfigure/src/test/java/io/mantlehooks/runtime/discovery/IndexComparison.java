package io.mantlehooks.runtime.discovery;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.mantlehooks.HookPoint;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookLane;

import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Validates every hook method of compiled classes twice, once with the compile-time index
 * and once reading the class files, and asserts the same results and that the index
 * answered for every hook class (else the comparison would prove nothing).
 */
final class IndexComparison {

	private IndexComparison() {
	}

	/**
	 * Compare, and return how many hook methods were compared.
	 */
	static int assertIndexMatchesBytecode(ClassLoader loader, Path classes) throws Exception {
		SourceChecks index = SourceChecks.load(loader);
		HookMethodValidator indexed = new HookMethodValidator(new SignalUsageInspector(new RecordedChecks(), index));
		HookMethodValidator read = new HookMethodValidator(
				new SignalUsageInspector(new RecordedChecks(), SourceChecks.none()));
		Set<Class<?>> hookClasses = new LinkedHashSet<>();
		int compared = 0;
		for (Class<?> type : classes(loader, classes)) {
			for (Method method : type.getDeclaredMethods()) {
				HookCandidate candidate = candidate(method);
				if (candidate == null) {
					continue;
				}
				hookClasses.add(type);
				compared++;
				assertThat(indexed.constructedSignals(candidate)).as("signals of %s", method)
					.containsExactlyInAnyOrderElementsOf(read.constructedSignals(candidate));
				assertThat(indexed.rejectionResponseNames(candidate)).as("rejection names of %s", method)
					.containsExactlyInAnyOrderElementsOf(read.rejectionResponseNames(candidate));
				assertThat(indexed.validate(candidate)).as("problems of %s", method)
					.isEqualTo(read.validate(candidate));
			}
		}
		assertThat(index.coveredClasses()).as("hook classes the index answered for").isEqualTo(hookClasses.size());
		return compared;
	}

	private static List<Class<?>> classes(ClassLoader loader, Path classes) throws IOException {
		List<Class<?>> types = new ArrayList<>();
		try (Stream<Path> files = Files.walk(classes)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).sorted().toList()) {
				String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
				name = name.substring(0, name.length() - ".class".length());
				if (!name.endsWith("package-info")) {
					try {
						types.add(Class.forName(name, false, loader));
					}
					catch (ClassNotFoundException | LinkageError ex) {
						throw new IllegalStateException("Cannot load " + name, ex);
					}
				}
			}
		}
		return types;
	}

	private static HookCandidate candidate(Method method) {
		for (MergedAnnotation<Annotation> annotation : MergedAnnotations.from(method)) {
			for (HookPoint point : HookPoint.values()) {
				HookLane lane = (annotation.getType() == point.observeAnnotation()) ? HookLane.OBSERVE
						: (annotation.getType() == point.modifyAnnotation()) ? HookLane.MODIFY : null;
				if (lane != null) {
					return new HookCandidate("bean", method, annotation.getType(), point, lane,
							annotation.getValue("timeoutMs", Long.class).orElse(-1L), StreamMode.WHOLE, Set.of());
				}
			}
		}
		return null;
	}

}
