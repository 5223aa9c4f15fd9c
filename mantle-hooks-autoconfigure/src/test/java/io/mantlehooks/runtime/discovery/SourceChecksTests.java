package io.mantlehooks.runtime.discovery;

import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
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

	/** The method key of {@code demo.Hooks#screen} (name and descriptor). */
	private static final String SCREEN = "screen(Lio/mantlehooks/IncomingMessagePayload;)"
			+ "Lio/mantlehooks/IncomingMessagePayload;";

	private static final String VERSION_2 = "mantle-hooks.source-checks.version=2";

	@TempDir
	Path directory;

	@Test
	void theIndexAnswersForAnUnchangedClassFileAndTheStartupLogSaysSo(CapturedOutput output) throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java",
				hooks("if (message.text().isEmpty()) { throw new HookRejection(\"no\", \"utter_read\"); }")));
		// an index that disagrees with the bytecode shows which of the two answered
		rewriteIndex(compiler, " " + SCREEN + "=io.mantlehooks.HookRejection=utter_read",
				" " + SCREEN + "=io.mantlehooks.RetryModel=utter_indexed");
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
		// a class that constructs nothing is its class file's fingerprint alone
		assertThat(Files.readString(compiler.index())).containsPattern("(?m)^demo\\.Hooks \\d+,[0-9a-f]+,\\d+$");
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
		claimRetry(compiler);
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
		claimRetry(compiler);
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
		String claimsRetry = claimRetry(compiler);
		String line = claimsRetry.lines().filter((text) -> text.startsWith("demo.Hooks ")).findFirst().orElseThrow();
		String fingerprint = line.split(" ")[1];
		List<String> garbled = List.of(
				// escapes, version, no version line, the fingerprint missing or malformed
				claimsRetry.replace(" screen(", " scr\\uZZZZeen("), claimsRetry.replace(" screen(", " scr\\een("),
				claimsRetry.replace(VERSION_2, "mantle-hooks.source-checks.version=9"),
				claimsRetry.replace(VERSION_2 + "\n", ""), claimsRetry.replace(VERSION_2, "# " + VERSION_2),
				claimsRetry.replace("demo.Hooks " + fingerprint, "demo.Hooks"),
				claimsRetry.replace(fingerprint, "x" + fingerprint),
				claimsRetry.replace(fingerprint, fingerprint.toUpperCase(Locale.ROOT) + "ABC"),
				claimsRetry.replace(fingerprint, fingerprint + ",1"),
				claimsRetry.replace(fingerprint, fingerprint.substring(0, fingerprint.lastIndexOf(','))),
				// signals: unknown, none, an empty one
				claimsRetry.replace("=io.mantlehooks.RetryModel", "=io.mantlehooks.Nonsense"),
				claimsRetry.replace("=io.mantlehooks.RetryModel", "="),
				claimsRetry.replace("=io.mantlehooks.RetryModel", "=io.mantlehooks.RetryModel,"),
				// malformed methods
				claimsRetry.replace(" " + SCREEN + "=", " " + SCREEN), claimsRetry.replace(" screen(", " ("),
				claimsRetry.replace(" " + SCREEN, " screen"), claimsRetry.replace(" " + SCREEN, " screen()"),
				claimsRetry.replace(" screen(", " scr#een("),
				// separators: two spaces, a trailing space, a tab, CR line ends
				claimsRetry.replace(" screen(", "  screen("), claimsRetry.replace(line, line + " "),
				claimsRetry.replace(" screen(", "\tscreen("), claimsRetry.replace("\n", "\r\n"),
				// two lines for one class, one method twice, a class name with a slash
				claimsRetry + line + "\n",
				claimsRetry.replace(line, line + " " + SCREEN + "=io.mantlehooks.RetryModel"),
				claimsRetry + "demo/Other " + fingerprint + "\n",
				// a byte beyond ASCII
				claimsRetry.replace("demo.Hooks ", "demo.Hooks\u00e9 "));
		assertGarbledIgnored(compiler, claimsRetry, garbled, output);
	}

	@Test
	void aVersionOneIndexIsStillReadAndAMethodItDoesNotListIsReadFromTheClassFile(CapturedOutput output)
			throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java",
				hooks("if (message.text().isEmpty()) { throw new HookRejection(\"no\", \"utter_read\"); }")));
		String fingerprint = Files.readString(compiler.index())
			.lines()
			.filter((text) -> text.startsWith("demo.Hooks "))
			.findFirst()
			.orElseThrow()
			.split(" ")[1];
		// as an earlier processor wrote it: every method, two keys each
		String versionOne = "# an index of the first version\nmantle-hooks.source-checks.version=1\n"
				+ "demo.Hooks.class-file=" + fingerprint + "\n" + "demo.Hooks\\#" + SCREEN
				+ ".signals=io.mantlehooks.RetryModel\n" + "demo.Hooks\\#" + SCREEN
				+ ".rejection-names=utter_indexed\n";
		Files.writeString(compiler.index(), versionOne);
		try (URLClassLoader loader = compiler.loader()) {
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), SourceChecks.load(loader));
			assertThat(inspector.constructedSignals(screen(loader))).containsExactly(RetryModel.class);
			assertThat(inspector.rejectionResponseNames(screen(loader))).containsExactly("utter_indexed");
		}
		// a method missing from a first-version index is read from its class file
		Files.writeString(compiler.index(), versionOne.replace("#" + SCREEN, "#other" + SCREEN.substring(6)));
		try (URLClassLoader loader = compiler.loader()) {
			SourceChecks index = SourceChecks.load(loader);
			assertThat(index.find(screen(loader))).isNull();
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), index);
			assertThat(inspector.constructedSignals(screen(loader))).containsExactly(HookRejection.class);
			assertThat(inspector.rejectionResponseNames(screen(loader))).containsExactly("utter_read");
		}
		assertThat(output).doesNotContain("Ignoring the hook signal index");
	}

	@Test
	void aMethodAVersionTwoLineDoesNotListConstructsNothing() throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java",
				hooks("if (message.text().isEmpty()) { throw new HookRejection(\"no\", \"utter_read\"); }")));
		rewriteIndex(compiler, " " + SCREEN + "=io.mantlehooks.HookRejection=utter_read", "");
		try (URLClassLoader loader = compiler.loader()) {
			SourceChecks index = SourceChecks.load(loader);
			// the class is covered, the method not listed: nothing, without reading the
			// class file (which says otherwise)
			assertThat(index.find(screen(loader))).isNotNull();
			SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks(), index);
			assertThat(inspector.constructedSignals(screen(loader))).isEmpty();
			assertThat(inspector.rejectionResponseNames(screen(loader))).isEmpty();
		}
	}

	@Test
	void aGarbledVersionOneIndexIsIgnoredWithAWarningNeverTrusted(CapturedOutput output) throws Exception {
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", hooks("")));
		String fingerprint = Files.readString(compiler.index())
			.lines()
			.filter((text) -> text.startsWith("demo.Hooks "))
			.findFirst()
			.orElseThrow()
			.split(" ")[1];
		String claimsRetry = "mantle-hooks.source-checks.version=1\ndemo.Hooks.class-file=" + fingerprint + "\n"
				+ "demo.Hooks\\#" + SCREEN + ".signals=io.mantlehooks.RetryModel\n" + "demo.Hooks\\#" + SCREEN
				+ ".rejection-names=\n";
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
		assertGarbledIgnored(compiler, claimsRetry, garbled, output);
	}

	private static void assertGarbledIgnored(HookClassCompiler compiler, String claimsRetry, List<String> garbled,
			CapturedOutput output) throws Exception {
		assertThat(garbled).doesNotHaveDuplicates().doesNotContain(claimsRetry);
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
	void theIndexGivesTheBytecodeResultsForErasedVarargsInnerBridgedAndOddlyNamedHooks() throws Exception {
		// a method a line does not list constructs nothing, so each listed key must be
		// the one the runtime builds from the loaded method, each name read back exactly
		HookClassCompiler compiler = new HookClassCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Shapes.java",
				"""
						package demo;
						import io.mantlehooks.*;
						import io.mantlehooks.annotation.*;
						import java.io.*;
						import java.util.function.*;
						public class Shapes<E extends IncomingMessagePayload> {
							final Supplier<RuntimeException> field = () -> new RetryModel("field");
							@ModifyIncomingMessage
							E erased(E message) { throw new HookRejection("no", "utter_erased"); }
							@ModifyIncomingMessage
							<T extends IncomingMessagePayload> T bounded(T message) { throw new RetryModel("x"); }
							@ModifyIncomingMessage
							<T extends Object & Serializable> T intersection(T message) { throw new RetryModel("x"); }
							@OnTurnStarted
							void varargs(TurnStartedPayload... started) {
								Runnable outer = () -> { Runnable inner = () -> { throw new RetryModel("deep"); }; };
							}
							@ModifyIncomingMessage
							IncomingMessagePayload usesField(IncomingMessagePayload message) { throw this.field.get(); }
							@ModifyIncomingMessage
							IncomingMessagePayload names(IncomingMessagePayload message) {
								switch (message.text()) {
									case "a": throw new HookRejection("a", "one,two");
									case "b": throw new HookRejection("b", "");
									default: throw new HookRejection("c", "gr\\u00fc\\u00dfe =\\\\ x");
								}
							}
							public class Inner {
								@ModifyIncomingMessage
								IncomingMessagePayload screen(IncomingMessagePayload message) { throw new RetryModel("inner"); }
							}
							public static class Bridged implements Function<IncomingMessagePayload, IncomingMessagePayload> {
								@ModifyIncomingMessage
								public IncomingMessagePayload apply(IncomingMessagePayload message) { throw new RetryModel("x"); }
							}
							public interface Defaulted {
								@ModifyIncomingMessage
								default IncomingMessagePayload screen(IncomingMessagePayload message) {
									throw new HookRejection("no", "utter_default");
								}
							}
							public enum Kind {
								A;
								@ModifyIncomingMessage
								IncomingMessagePayload screen(IncomingMessagePayload message) { throw new RetryModel("x"); }
							}
							public record Pair(String value) {
								@ModifyIncomingMessage
								IncomingMessagePayload screen(IncomingMessagePayload message) { throw new RetryModel("x"); }
							}
						}
						"""));
		try (URLClassLoader loader = compiler.loader()) {
			assertThat(IndexComparison.assertIndexMatchesBytecode(loader, compiler.classes())).isEqualTo(12);
			Class<?> shapes = Class.forName("demo.Shapes", false, loader);
			Method names = shapes.getDeclaredMethod("names", Class.forName("io.mantlehooks.IncomingMessagePayload"));
			assertThat(SourceChecks.load(loader).find(names).rejectionNames()).containsExactly("one,two", "",
					"gr\u00fc\u00dfe =\\ x");
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
						tests.resolve("runtime/discovery/RecordedChecksTests.java")));
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
		assertThat(text).contains(from);
		Files.writeString(compiler.index(), text.replace(from, to));
	}

	/**
	 * Make the index say that {@code screen}, which constructs nothing, constructs
	 * {@code RetryModel}: which of the two answered shows.
	 * @return the index's new text
	 */
	private static String claimRetry(HookClassCompiler compiler) throws Exception {
		String text = Files.readString(compiler.index());
		assertThat(text).startsWith("#").contains("\n" + VERSION_2 + "\n").doesNotContain(SCREEN);
		String claimed = text.replaceAll("(?m)^(demo\\.Hooks \\S+)$", "$1 " + SCREEN + "=io.mantlehooks.RetryModel");
		assertThat(claimed).isNotEqualTo(text);
		Files.writeString(compiler.index(), claimed);
		return claimed;
	}

}
