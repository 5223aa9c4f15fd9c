package io.mantlehooks.test;

import java.util.ArrayList;
import java.util.List;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;

/**
 * The test kit is built on the library's API ({@code docs/api.md}): what it offers names
 * API types only, and only the two classes that drive the engine itself
 * ({@link HookTester} runs hooks without an application, {@link HookActivity} waits for
 * an application's observers) reach into the runtime.
 */
@AnalyzeClasses(packages = "io.mantlehooks.test", importOptions = ImportOption.DoNotIncludeTests.class)
final class TestKitArchitectureTests {

	/** The library's API packages, and the test kit itself. */
	static final String[] API = { "io.mantlehooks", "io.mantlehooks.annotation..", "io.mantlehooks.approval..",
			"io.mantlehooks.transcript..", "io.mantlehooks.observation..", "io.mantlehooks.test.." };

	private TestKitArchitectureTests() {
	}

	@ArchTest
	static final ArchRule usesOnlyTheApi = ArchRuleDefinition.classes()
		.that()
		.doNotBelongToAnyOf(HookTester.class, HookActivity.class)
		.should()
		.onlyDependOnClassesThat(api().or(outsideTheLibrary()));

	@ArchTest
	static final ArchRule theEngineDriversUseOnlyTheApiAndTheRuntime = ArchRuleDefinition.classes()
		.that()
		.belongToAnyOf(HookTester.class, HookActivity.class)
		.should()
		.onlyDependOnClassesThat(
				api().or(outsideTheLibrary()).or(JavaClass.Predicates.resideInAnyPackage("io.mantlehooks.runtime..")));

	@ArchTest
	static final ArchRule publicSignaturesNameOnlyApiTypes = ArchRuleDefinition.codeUnits()
		.that()
		.arePublic()
		.and()
		.areDeclaredInClassesThat()
		.arePublic()
		.should(new NameOnlyApiTypes());

	static DescribedPredicate<JavaClass> api() {
		return JavaClass.Predicates.resideInAnyPackage(API);
	}

	static DescribedPredicate<JavaClass> outsideTheLibrary() {
		return JavaClass.Predicates.resideOutsideOfPackage("io.mantlehooks..");
	}

	/** A public method's or constructor's parameter and return types are API types. */
	static final class NameOnlyApiTypes extends ArchCondition<JavaCodeUnit> {

		NameOnlyApiTypes() {
			super("name only API types in their signature");
		}

		@Override
		public void check(JavaCodeUnit codeUnit, ConditionEvents events) {
			if (codeUnit.getModifiers().contains(JavaModifier.SYNTHETIC)) {
				return;
			}
			List<JavaClass> types = new ArrayList<>(codeUnit.getRawParameterTypes());
			types.add(codeUnit.getRawReturnType());
			for (JavaClass type : types) {
				JavaClass element = type.isArray() ? type.getBaseComponentType() : type;
				if (!api().test(element) && !outsideTheLibrary().test(element)) {
					events.add(SimpleConditionEvent.violated(codeUnit,
							codeUnit.getFullName() + " names the internal type " + element.getName()));
				}
			}
		}

	}

}
