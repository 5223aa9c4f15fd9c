package io.mantlehooks;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.Architectures;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import io.mantlehooks.autoconfigure.MantleHooksProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The architecture as rules: the layering {@code api <- runtime <- ai <- autoconfigure}
 * (the console sits with the auto-configuration: it reads the api's stores and
 * observations and is wired by it), no package cycles, no Spring AI in the runtime or in
 * the api packages that do not adapt it, and the public types of every package as listed
 * here, so a new public type is a deliberate act. Production classes only: the test kit,
 * whose sources are compiled into these tests, is not imported; its own rules
 * ({@code TestKitArchitectureTests}) and the sample's ({@code SampleArchitectureTests})
 * keep both on the API packages.
 */
@AnalyzeClasses(packages = "io.mantlehooks",
		importOptions = { ImportOption.DoNotIncludeTests.class, ArchitectureTests.ProductionOnly.class })
final class ArchitectureTests {

	/**
	 * The api packages; {@code message} (internal: the payload's frozen messages) sits
	 * with them, as the payloads freeze their messages themselves.
	 */
	private static final String[] API = { "io.mantlehooks", "io.mantlehooks.annotation..", "io.mantlehooks.approval..",
			"io.mantlehooks.transcript..", "io.mantlehooks.observation..", "io.mantlehooks.message.." };

	/** The api packages as applications see them (docs/api.md). */
	private static final String[] API_ONLY = { "io.mantlehooks", "io.mantlehooks.annotation..",
			"io.mantlehooks.approval..", "io.mantlehooks.transcript..", "io.mantlehooks.observation.." };

	@ArchTest
	static final ArchRule layersDependOnlyDownwards = Architectures.layeredArchitecture()
		.consideringOnlyDependenciesInLayers()
		.layer("api")
		.definedBy(API)
		.layer("runtime")
		.definedBy("io.mantlehooks.runtime..")
		.layer("ai")
		.definedBy("io.mantlehooks.ai..")
		.layer("autoconfigure")
		.definedBy("io.mantlehooks.autoconfigure..", "io.mantlehooks.console..")
		.whereLayer("autoconfigure")
		.mayNotBeAccessedByAnyLayer()
		.whereLayer("ai")
		.mayOnlyBeAccessedByLayers("autoconfigure")
		.whereLayer("runtime")
		.mayOnlyBeAccessedByLayers("ai", "autoconfigure");

	@ArchTest
	static final ArchRule packagesAreFreeOfCycles = SlicesRuleDefinition.slices()
		.assignedFrom(new EachPackage())
		.should()
		.beFreeOfCycles();

	/**
	 * The runtime split by job: its root is the hooks as the runtime knows them, and the
	 * jobs (discovery, execution, guards) build on it without depending on each other,
	 * but for discovery, which makes each hook's guards.
	 */
	@ArchTest
	static final ArchRule runtimeJobsDependOnlyOnTheRoot = Architectures.layeredArchitecture()
		.consideringOnlyDependenciesInLayers()
		.layer("root")
		.definedBy("io.mantlehooks.runtime")
		.layer("guard")
		.definedBy("io.mantlehooks.runtime.guard..")
		.layer("discovery")
		.definedBy("io.mantlehooks.runtime.discovery..")
		.layer("execution")
		.definedBy("io.mantlehooks.runtime.execution..")
		.whereLayer("root")
		.mayNotAccessAnyLayer()
		.whereLayer("guard")
		.mayOnlyAccessLayers("root")
		.whereLayer("execution")
		.mayOnlyAccessLayers("root")
		.whereLayer("discovery")
		.mayOnlyAccessLayers("root", "guard");

	@ArchTest
	static final ArchRule runtimeUsesNoSpringAi = ArchRuleDefinition.noClasses()
		.that()
		.resideInAPackage("io.mantlehooks.runtime..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("org.springframework.ai..");

	/**
	 * The api packages other than the root: the root's {@code MantleHooks} hands advisor
	 * params to Spring AI's {@code ChatClient}, and {@code ApprovalResumer} resumes a
	 * turn through it, by design.
	 */
	@ArchTest
	static final ArchRule apiUsesNoSpringAiBeyondItsEntryPoints = ArchRuleDefinition.noClasses()
		.that()
		.resideInAnyPackage("io.mantlehooks.annotation..", "io.mantlehooks.transcript..",
				"io.mantlehooks.observation..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("org.springframework.ai..");

	/**
	 * What an application sees of the api packages and {@code MantleHooksProperties}
	 * names api types only: an internal type in a public signature is an internal type
	 * the application meets.
	 */
	@ArchTest
	static final ArchRule apiSignaturesNameOnlyApiTypes = ArchRuleDefinition.codeUnits()
		.that()
		.arePublic()
		.and()
		.areDeclaredInClassesThat()
		.arePublic()
		.and()
		.areDeclaredInClassesThat(JavaClass.Predicates.resideInAnyPackage(API_ONLY)
			.or(JavaClass.Predicates.belongToAnyOf(MantleHooksProperties.class)))
		.should(new NameOnlyApiTypes());

	/**
	 * No state shared through static fields: a static field is final and holds a
	 * constant, a logger, an immutable value or a thread-local; arrays only privately.
	 * Concurrency comes from executors and futures a reader knows, not from counters the
	 * whole JVM shares.
	 */
	@ArchTest
	static final ArchRule staticFieldsHoldNoMutableState = ArchRuleDefinition.fields()
		.that()
		.areStatic()
		// the compiler's own tables (a switch over an enum)
		.and()
		.doNotHaveModifier(JavaModifier.SYNTHETIC)
		.should()
		.beFinal()
		.andShould(new StaticFieldTypes())
		.because("static mutable state is shared by every application and test in the JVM");

	/** Nothing waits by spinning or yielding: threads park in the platform's parts. */
	@ArchTest
	static final ArchRule nothingSpinsOrYields = ArchRuleDefinition.noClasses()
		.should()
		.callMethod(Thread.class, "onSpinWait")
		.orShould()
		.callMethod(Thread.class, "yield");

	/**
	 * Every package's public top-level types. Internal packages ({@code runtime},
	 * {@code ai.*}, {@code console}) are public only where another package of the library
	 * uses them; see their {@code package-info}.
	 */
	static final Map<String, List<String>> PUBLIC_TYPES = Map.ofEntries(
			Map.entry("io.mantlehooks",
					List.of("AgentNames", "Channel", "HookDefinitionException", "HookFailure", "HookOutcome",
							"HookPayload", "HookPoint", "HookProblem", "HookRejection", "HookSignal",
							"IncomingMessagePayload", "KnowledgeQueryPayload", "KnowledgeResultsPayload", "MantleHooks",
							"ModelRequestPayload", "ModelResponsePayload", "ModelSettings", "ModelToolCall",
							"ModifyResult", "OutgoingTextPayload", "Passage", "PayloadTooDeepException", "RetryModel",
							"ToolCallPayload", "ToolResultPayload", "TurnFinishedPayload", "TurnStartedPayload",
							"TurnStatus", "UnhookedCallPolicy", "UnhookedModelCallException")),
			Map.entry("io.mantlehooks.annotation",
					List.of("ModifyIncomingMessage", "ModifyKnowledgeQuery", "ModifyKnowledgeResults",
							"ModifyModelRequest", "ModifyModelResponse", "ModifyOutgoingText", "ModifyToolCall",
							"ModifyToolResult", "OnIncomingMessage", "OnKnowledgeQuery", "OnKnowledgeResults",
							"OnModelRequest", "OnModelResponse", "OnOutgoingText", "OnToolCall", "OnToolResult",
							"OnTurnFinished", "OnTurnStarted", "StreamMode", "ForAgent")),
			Map.entry("io.mantlehooks.approval",
					List.of("ApprovalAuthorizer", "ApprovalCall", "ApprovalResumer", "ApprovalStore",
							"InMemoryApprovalStore", "JdbcApprovalStore", "PendingApproval", "ToolApprovalPolicy")),
			Map.entry("io.mantlehooks.transcript",
					List.of("InMemoryTranscriptStore", "JdbcTranscriptStore", "TranscriptEntry", "TranscriptRole",
							"TranscriptStore")),
			Map.entry("io.mantlehooks.observation",
					List.of("DefaultHookObservationConvention", "DefaultTurnObservationConvention",
							"HookObservationContext", "HookObservationConvention", "HookObservationDocumentation",
							"TurnObservationContext", "TurnObservationConvention", "TurnObservationDocumentation")),
			Map.entry("io.mantlehooks.message", List.of("FrozenMessageCache", "FrozenMessages")),
			Map.entry("io.mantlehooks.runtime",
					List.of("CallerContext", "ConfigurationKeys", "HookLane", "HookMethod", "HookRegistry",
							"HookResponses", "HookScope", "InvocationStyle", "TimeoutSource")),
			Map.entry("io.mantlehooks.runtime.discovery", List.of("HookMethodProcessor", "HookTimeouts")),
			Map.entry("io.mantlehooks.runtime.execution",
					List.of("HookRunner", "HookThreadPool", "VirtualHookExecutor")),
			Map.entry("io.mantlehooks.runtime.guard", List.of("CircuitBreakerSettings", "HookGuards")),
			Map.entry("io.mantlehooks.ai.approval", List.of("ApprovalQuestion", "StoredBatch", "ToolApprovals")),
			Map.entry("io.mantlehooks.ai.chat", List.of("MantleChatClientCustomizer")),
			Map.entry("io.mantlehooks.ai.knowledge", List.of("KnowledgeBeanPostProcessor")),
			Map.entry("io.mantlehooks.ai.model",
					List.of("ChatModelBeanPostProcessor", "UnhookedCallCoverageCheck", "UnhookedCallDetector")),
			Map.entry("io.mantlehooks.ai.tool", List.of("BatchOutcome", "MantleMcpMetaConverter", "ToolBatch")),
			Map.entry("io.mantlehooks.ai.turn",
					List.of("CurrentTurn", "CurrentTurnPropagation", "HookSteps", "Step", "Steps", "ToolArguments",
							"Turn", "TurnCancelledException")),
			Map.entry("io.mantlehooks.autoconfigure",
					List.of("MantleHooksAutoConfiguration", "MantleHooksChatClientAutoConfiguration",
							"MantleHooksConsoleAutoConfiguration", "MantleHooksConsoleManagementContextConfiguration",
							"MantleHooksDecisionsManagementContextConfiguration", "MantleHooksEndpoint",
							"MantleHooksEndpointAutoConfiguration", "MantleHooksMetricsAutoConfiguration",
							"MantleHooksProperties", "MantleHooksStoresAutoConfiguration")),
			Map.entry("io.mantlehooks.console",
					List.of("ConsolePage", "RecordedHook", "RecordedTurn", "TurnConsole", "TurnRecorder")));

	private ArchitectureTests() {
	}

	@ArchTest
	static void publicTypesAreTheListedOnes(JavaClasses classes) {
		Map<String, Set<String>> actual = new TreeMap<>();
		for (JavaClass type : classes) {
			if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)) {
				actual.computeIfAbsent(type.getPackageName(), (name) -> new TreeSet<>()).add(type.getSimpleName());
			}
		}
		Set<String> packages = new TreeSet<>(actual.keySet());
		packages.addAll(PUBLIC_TYPES.keySet());
		List<String> problems = new ArrayList<>();
		for (String name : packages) {
			Set<String> found = actual.getOrDefault(name, Set.of());
			Set<String> listed = new TreeSet<>(PUBLIC_TYPES.getOrDefault(name, List.of()));
			Set<String> unexpected = new TreeSet<>(found);
			unexpected.removeAll(listed);
			Set<String> missing = new TreeSet<>(listed);
			missing.removeAll(found);
			if (!unexpected.isEmpty()) {
				problems.add(name + ": public but not listed " + unexpected);
			}
			if (!missing.isEmpty()) {
				problems.add(name + ": listed but not public (or gone) " + missing);
			}
		}
		assertThat(problems)
			.as("public types that differ from ArchitectureTests.PUBLIC_TYPES; actual:%n%s",
					actual.entrySet()
						.stream()
						.map((entry) -> entry.getKey() + " " + entry.getValue())
						.collect(Collectors.joining(System.lineSeparator())))
			.isEmpty();
	}

	/**
	 * A static field's type is no mutable holder: no atomic, no concurrent or mutable
	 * collection, no reference; an array only when private.
	 */
	static final class StaticFieldTypes extends ArchCondition<JavaField> {

		StaticFieldTypes() {
			super("hold no mutable state");
		}

		@Override
		public void check(JavaField field, ConditionEvents events) {
			if (isMutable(field)) {
				events.add(SimpleConditionEvent.violated(field,
						field.getFullName() + " is static and of the mutable type " + field.getRawType().getName()));
			}
		}

		private static boolean isMutable(JavaField field) {
			JavaClass type = field.getRawType();
			if (type.isArray()) {
				return !field.getModifiers().contains(JavaModifier.PRIVATE);
			}
			if (type.getPackageName().equals("java.util.concurrent.atomic") || type.isAssignableTo(Reference.class)
					|| type.isAssignableTo(Queue.class) || type.isAssignableTo(ConcurrentMap.class)) {
				return true;
			}
			// a collection constant is declared by its interface (List.of, Set.of,
			// Map.of);
			// a concrete collection class is a mutable one
			return (type.isAssignableTo(Collection.class) || type.isAssignableTo(Map.class)) && !type.isInterface();
		}

	}

	/** A public method's or constructor's parameter and return types are api types. */
	static final class NameOnlyApiTypes extends ArchCondition<JavaCodeUnit> {

		NameOnlyApiTypes() {
			super("name only api types in their signature");
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
				boolean api = element.getPackageName().equals("io.mantlehooks")
						|| JavaClass.Predicates.resideInAnyPackage(API_ONLY).test(element)
						|| element.isAssignableTo(MantleHooksProperties.class)
						|| element.getName().startsWith(MantleHooksProperties.class.getName() + "$")
						|| !element.getPackageName().startsWith("io.mantlehooks");
				if (!api) {
					events.add(SimpleConditionEvent.violated(codeUnit,
							codeUnit.getFullName() + " names the internal type " + element.getName()));
				}
			}
		}

	}

	/**
	 * Each package is its own slice, so a cycle between two {@code ai} packages counts as
	 * much as one between layers.
	 */
	static final class EachPackage implements SliceAssignment {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			return javaClass.getPackageName().startsWith("io.mantlehooks")
					? SliceIdentifier.of(javaClass.getPackageName()) : SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "each package of io.mantlehooks";
		}

	}

	/**
	 * Leaves out the test kit ({@code io.mantlehooks.test}), compiled into these tests
	 * from its module's sources.
	 */
	static final class ProductionOnly implements ImportOption {

		@Override
		public boolean includes(Location location) {
			return !location.contains("/io/mantlehooks/test/");
		}

	}

}
