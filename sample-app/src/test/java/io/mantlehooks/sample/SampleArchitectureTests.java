package io.mantlehooks.sample;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import io.mantlehooks.autoconfigure.MantleHooksProperties;

/**
 * The sample is an application like any other: it uses the library's API packages
 * ({@code docs/api.md}) and nothing internal. The classes Spring's AOT processing
 * generates (named {@code ...__BeanDefinitions} and so on) register the auto-configured
 * beans, internal types among them, and are left out.
 */
@AnalyzeClasses(packages = "io.mantlehooks.sample",
		importOptions = { ImportOption.DoNotIncludeTests.class, SampleArchitectureTests.WrittenByHand.class })
final class SampleArchitectureTests {

	private SampleArchitectureTests() {
	}

	@ArchTest
	static final ArchRule usesOnlyTheApi = ArchRuleDefinition.classes()
		.should()
		.onlyDependOnClassesThat(JavaClass.Predicates
			.resideInAnyPackage("io.mantlehooks", "io.mantlehooks.annotation..", "io.mantlehooks.approval..",
					"io.mantlehooks.transcript..", "io.mantlehooks.observation..", "io.mantlehooks.sample..")
			.or(JavaClass.Predicates.resideOutsideOfPackage("io.mantlehooks.."))
			.or(JavaClass.Predicates.type(MantleHooksProperties.class)));

	/** Leaves out the classes Spring's AOT processing generates. */
	static final class WrittenByHand implements ImportOption {

		@Override
		public boolean includes(Location location) {
			return !location.contains("__");
		}

	}

}
