package io.mantlehooks.runtime;

import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookRejection;
import io.mantlehooks.RetryModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compile-time index of mantle-hooks-processor at startup: trusted for the class
 * files it describes in its own root, and for nothing else; the check reads the class
 * file wherever the index does not answer, and gives the same results either way.
 */
@ExtendWith(OutputCaptureExtension.class)
class SourceChecksTests {

	private static final String SCREEN = "demo.Hooks#screen(Lio/mantlehooks/IncomingMessagePayload;)"
			+ "Lio/mantlehooks/IncomingMessagePayload;";

	@TempDir
	Path directory;

	@Test
	void theIndexAnswersForAnUnchangedClassFileAndTheStartupLogSaysSo(CapturedOutput output) throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java",
				hooks("if (message.text().isEmpty()) { throw new HookRejection(\"no\", \"utter_read\"); }")));
		// an index that disagrees with the bytecode shows which of the two answered
		rewriteIndex(compiler, SCREEN + ".signals=io.mantlehooks.HookRejection",
				SCREEN + ".signals=io.mantlehooks.RetryModel");
		rewriteIndex(compiler, SCREEN + ".rejection-names=utter_read", SCREEN + ".rejection-names=utter_indexed");
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		logging.setLogLevel(SignalUsageInspector.class.getName(), LogLevel.DEBUG);
		try (URLClassLoader loader = compiler.loader()) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			Method screen = screen(loader);
			assertThat(inspector.constructedSignals(screen)).containsExactly(RetryModel.class);
			assertThat(inspector.rejectionResponseNames(screen)).containsExactly("utter_indexed");
			inspector.clear();
		}
		finally {
			logging.setLogLevel(SignalUsageInspector.class.getName(), null);
		}
		assertThat(output).contains("Hook signal check: 1 hook classes from the compile-time index ("
				+ SourceChecks.LOCATION + "), 0 class files read");
	}

	@Test
	void aClassRecompiledWithoutTheProcessorIsReadAgain() throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", hooks("")));
		assertThat(Files.readString(compiler.index())).contains(SCREEN.replace("#", "\\#") + ".signals=\n");
		compiler.compile(false,
				Map.of("demo/Hooks.java", hooks("if (message.text().isEmpty()) { throw new RetryModel(\"again\"); }")));
		try (URLClassLoader loader = compiler.loader()) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			assertThat(inspector.constructedSignals(screen(loader))).containsExactly(RetryModel.class);
		}
	}

	@Test
	void theIndexAnswersOnlyForClassesLoadedFromItsOwnRoot() throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", hooks("")));
		rewriteIndex(compiler, SCREEN + ".signals=", SCREEN + ".signals=io.mantlehooks.RetryModel");
		// the same class file, time stamp included, in a root of its own that comes first
		Path otherRoot = Files.createDirectories(this.directory.resolve("other/demo"));
		Files.copy(compiler.classes().resolve("demo/Hooks.class"), otherRoot.resolve("Hooks.class"),
				StandardCopyOption.COPY_ATTRIBUTES);
		try (URLClassLoader loader = compiler.loader(otherRoot.getParent())) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			assertThat(inspector.constructedSignals(screen(loader))).isEmpty();
		}
	}

	@Test
	void inAJarTheIndexIsCheckedAgainstTheEntrySizeAndCrc() throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", hooks("")));
		rewriteIndex(compiler, SCREEN + ".signals=", SCREEN + ".signals=io.mantlehooks.RetryModel");
		Path unchanged = compiler.jar(this.directory.resolve("unchanged.jar"));
		try (URLClassLoader loader = HookClassCompiler.loaderOf(unchanged)) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			assertThat(inspector.constructedSignals(screen(loader))).containsExactly(RetryModel.class);
		}
		compiler.compile(false, Map.of("demo/Hooks.java",
				hooks("if (message.text().isEmpty()) { throw new HookRejection(\"changed\"); }")));
		Path changed = compiler.jar(this.directory.resolve("changed.jar"));
		try (URLClassLoader loader = HookClassCompiler.loaderOf(changed)) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			assertThat(inspector.constructedSignals(screen(loader))).containsExactly(HookRejection.class);
		}
	}

	@Test
	void aGarbledIndexIsIgnoredWithAWarningNeverTrusted(CapturedOutput output) throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", hooks("")));
		String valid = Files.readString(compiler.index());
		String claimsRetry = valid.replace(SCREEN.replace("#", "\\#") + ".signals=",
				SCREEN.replace("#", "\\#") + ".signals=io.mantlehooks.RetryModel");
		assertThat(claimsRetry).isNotEqualTo(valid);
		List<String> garbled = List.of(claimsRetry + "broken\\uZZZZ=1\n",
				claimsRetry.replace("mantle-hooks.source-checks.version=1", "mantle-hooks.source-checks.version=9"),
				claimsRetry.replaceAll("(?m)^demo\\.Hooks\\.class-file=.*$", ""),
				claimsRetry.replaceAll("(?m)^(demo\\.Hooks\\.class-file=)\\d+", "$1x"),
				claimsRetry + "demo.Hooks\\#other()V.signals=io.mantlehooks.Nonsense\n"
						+ "demo.Hooks\\#other()V.rejection-names=\n",
				// malformed method keys, each with both of its keys
				claimsRetry + "demo.Hooks\\#()V.signals=\ndemo.Hooks\\#()V.rejection-names=\n",
				claimsRetry + "demo.Hooks\\#other.signals=\ndemo.Hooks\\#other.rejection-names=\n",
				claimsRetry + "demo.Hooks\\#other().signals=\ndemo.Hooks\\#other().rejection-names=\n",
				claimsRetry + "demo.Hooks\\#a\\#b()V.signals=\ndemo.Hooks\\#a\\#b()V.rejection-names=\n",
				// a method without one of its two keys
				claimsRetry + "demo.Hooks\\#other()V.signals=\n",
				claimsRetry + "demo.Hooks\\#other()V.rejection-names=\n",
				// fingerprints: too long, upper-case hex, a part missing, one too many
				claimsRetry.replaceAll("(?m)^(demo\\.Hooks\\.class-file=)\\d+", "$112345678901"),
				claimsRetry.replaceAll("(?m)^(demo\\.Hooks\\.class-file=\\d+,)[0-9a-f]+", "$1ABC"),
				claimsRetry.replaceAll("(?m)^(demo\\.Hooks\\.class-file=\\d+,[0-9a-f]+),.*$", "$1"),
				claimsRetry.replaceAll("(?m)^(demo\\.Hooks\\.class-file=.*)$", "$1,1"));
		for (String text : garbled) {
			Files.writeString(compiler.index(), text);
			try (URLClassLoader loader = compiler.loader()) {
				SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(),
						SourceChecks.load(loader));
				assertThat(inspector.constructedSignals(screen(loader))).as(text).isEmpty();
			}
		}
		assertThat(output.toString().split("Ignoring the hook signal index ", -1)).hasSize(garbled.size() + 1);
		assertThat(output).contains("WARN").contains("Rebuild to regenerate it");
		// and the valid one is trusted (the claim shows it)
		Files.writeString(compiler.index(), claimsRetry);
		try (URLClassLoader loader = compiler.loader()) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			assertThat(inspector.constructedSignals(screen(loader))).containsExactly(RetryModel.class);
		}
	}

	@Test
	void theIndexGivesTheBytecodeResultsForBodiesLambdasClassesAndConstants() throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Screening.java", """
				package demo;
				import java.lang.annotation.*;
				@Retention(RetentionPolicy.RUNTIME)
				@io.mantlehooks.annotation.ModifyOutgoingText
				@interface Screening { }
				""", "demo/Tricky.java",
				"""
						package demo;
						import io.mantlehooks.*;
						import io.mantlehooks.annotation.*;
						import java.util.function.*;
						public class Tricky {
							static final String NAME = "utter_" + "constant";
							static final String COMPUTED = String.valueOf("utter_computed");
							@ModifyIncomingMessage
							IncomingMessagePayload body(IncomingMessagePayload message) {
								switch (message.text()) {
									case "a": throw new HookRejection("a", "utter_literal");
									case "b": throw new HookRejection("b", NAME);
									case "c": throw new HookRejection("c", NAME + '!' + 1);
									case "d": throw new HookRejection("d", COMPUTED);
									case "e": throw new HookRejection("e", message.text());
									default: return message;
								}
							}
							@ModifyModelResponse
							ModelResponsePayload lambdas(ModelResponsePayload response) {
								Supplier<Supplier<RuntimeException>> nested = () -> () -> new RetryModel("again");
								Function<String, RetryModel> reference = RetryModel::new;
								return response;
							}
							@ModifyToolCall
							ToolCallPayload classes(ToolCallPayload call) {
								Runnable anonymous = new Runnable() {
									public void run() { throw new HookRejection("x", "utter_anonymous"); }
								};
								Supplier<Object> inAnonymous = () -> new Object() { RuntimeException field = new RetryModel("field"); };
								class Local { void fail() { throw new RetryModel("local"); } }
								return call;
							}
							@Screening
							OutgoingTextPayload composed(OutgoingTextPayload text) {
								throw new HookRejection("no", "utter_composed");
							}
							@OnTurnStarted
							void observer(TurnStartedPayload started) {
								throw new RetryModel("not allowed here");
							}
							public static class Nested {
								@OnModelRequest
								void request(ModelRequestPayload request) { }
							}
						}
						"""));
		try (URLClassLoader loader = compiler.loader()) {
			assertThat(IndexComparison.assertIndexMatchesBytecode(loader, compiler.classes())).isEqualTo(6);
		}
	}

	@Test
	void theIndexGivesTheBytecodeResultsForTheProjectsOwnHookClasses() throws Exception {
		Path tests = Path.of("src/test/java/io/mantlehooks");
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true,
				List.of(tests.resolve("ai/FaultyHooks.java"), tests.resolve("ai/ScriptedHooks.java"),
						tests.resolve("ai/ToolHooks.java"), tests.resolve("ai/KnowledgeHooks.java"),
						tests.resolve("ai/SingleModifierHooks.java"), tests.resolve("ai/RecordingObservers.java"),
						tests.resolve("ai/StreamingGuardrailTests.java"), tests.resolve("ai/HostileInputTests.java"),
						tests.resolve("runtime/RecordedChecksTests.java")));
		try (URLClassLoader loader = compiler.loader()) {
			assertThat(IndexComparison.assertIndexMatchesBytecode(loader, compiler.classes())).isGreaterThan(20);
		}
	}

	private static Method screen(ClassLoader loader) throws Exception {
		Class<?> hooks = Class.forName("demo.Hooks", false, loader);
		Class<?> payload = Class.forName("io.mantlehooks.IncomingMessagePayload");
		return hooks.getDeclaredMethod("screen", payload);
	}

	private static String hooks(String body) {
		return """
				package demo;
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;
				public class Hooks {
					@ModifyIncomingMessage
					IncomingMessagePayload screen(IncomingMessagePayload message) {
						%s
						return message;
					}
				}
				""".formatted(body);
	}

	private static void rewriteIndex(HookClassCompiler compiler, String from, String to) throws Exception {
		String text = Files.readString(compiler.index());
		String escapedFrom = from.replace("#", "\\#");
		assertThat(text).contains(escapedFrom);
		Files.writeString(compiler.index(), text.replace(escapedFrom, to.replace("#", "\\#")));
	}

}
