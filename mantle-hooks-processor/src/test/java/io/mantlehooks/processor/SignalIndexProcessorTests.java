package io.mantlehooks.processor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The index the processor writes, compiled in-process with javac: what counts as a
 * constructed signal and a rejection name is what the runtime's bytecode check finds in
 * the class file.
 */
class SignalIndexProcessorTests {

	private static final String HOOKS = "demo.Hooks#";

	@TempDir
	Path directory;

	@Test
	void signalsConstructedInTheBodyAndItsLambdasCountButNotInAnonymousClasses() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", """
				package demo;
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;
				import java.util.function.*;
				public class Hooks {
					@ModifyIncomingMessage
					String body(String text) {
						if (text.isEmpty()) { throw new RetryModel("again"); }
						return text;
					}
					@ModifyIncomingMessage
					String lambda(String text) {
						Supplier<Supplier<RuntimeException>> nested = () -> () -> new HookRejection("no");
						return text;
					}
					@ModifyIncomingMessage
					Object anonymous(String text) {
						return new Runnable() {
							public void run() { throw new RetryModel("elsewhere"); }
						};
					}
					@ModifyIncomingMessage
					Object subclassAndReference(String text) {
						Supplier<RuntimeException> subclass = () -> new HookRejection("sub") { };
						Function<String, RetryModel> reference = RetryModel::new;
						return subclass;
					}
					String notAHook(String text) {
						throw new RetryModel("helper");
					}
				}
				"""));
		Properties index = compiler.readIndex();
		assertThat(index.getProperty(HOOKS + "body(Ljava/lang/String;)Ljava/lang/String;.signals"))
			.isEqualTo("io.mantlehooks.RetryModel");
		assertThat(index.getProperty(HOOKS + "lambda(Ljava/lang/String;)Ljava/lang/String;.signals"))
			.isEqualTo("io.mantlehooks.HookRejection");
		assertThat(index.getProperty(HOOKS + "anonymous(Ljava/lang/String;)Ljava/lang/Object;.signals")).isEmpty();
		assertThat(index.getProperty(HOOKS + "subclassAndReference(Ljava/lang/String;)Ljava/lang/Object;.signals"))
			.isEmpty();
		// every method of a hook class is recorded: a hook inherited by a bean is looked
		// up
		// under its declaring class
		assertThat(index.getProperty(HOOKS + "notAHook(Ljava/lang/String;)Ljava/lang/String;.signals"))
			.isEqualTo("io.mantlehooks.RetryModel");
	}

	@Test
	void constantResponseNamesAreRecordedOtherNamesAreNot() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Names.java", """
				package demo;
				public final class Names {
					public static final String ELSEWHERE = "utter_" + "elsewhere";
				}
				""", "demo/Hooks.java", """
				package demo;
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;
				public class Hooks {
					private static final String BLOCKED = "utter_blocked";
					private static final String COMPUTED = String.valueOf("utter_computed");
					@ModifyIncomingMessage
					String names(String text) {
						String local = "utter_local_variable";
						switch (text) {
							case "a": throw new HookRejection("a", "utter_literal");
							case "b": throw new HookRejection("b", BLOCKED);
							case "c": throw new HookRejection("c", Names.ELSEWHERE + 2);
							case "d": throw new HookRejection("d", COMPUTED);
							case "e": throw new HookRejection("e", local);
							case "f": throw new HookRejection("f", text.trim());
							case "g": throw new HookRejection("g", null);
							default: throw new HookRejection("h");
						}
					}
				}
				"""));
		Properties index = compiler.readIndex();
		assertThat(index.getProperty(HOOKS + "names(Ljava/lang/String;)Ljava/lang/String;.rejection-names"))
			.isEqualTo("utter_literal,utter_blocked,utter_elsewhere2");
	}

	@Test
	void aComposedAnnotationMarksAHookClass() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Screening.java", """
				package demo;
				import java.lang.annotation.*;
				@Retention(RetentionPolicy.RUNTIME)
				@io.mantlehooks.annotation.ModifyIncomingMessage
				@interface Screening { }
				""", "demo/Audited.java", """
				package demo;
				import java.lang.annotation.*;
				@Retention(RetentionPolicy.RUNTIME)
				@Screening
				@interface Audited { }
				""", "demo/Hooks.java", """
				package demo;
				import io.mantlehooks.*;
				public class Hooks {
					@Audited
					String screen(String text) { throw new HookRejection("no", "utter_composed"); }
					public static class Plain {
						String screen(String text) { throw new HookRejection("no", "utter_plain"); }
					}
				}
				"""));
		Properties index = compiler.readIndex();
		assertThat(index.getProperty(HOOKS + "screen(Ljava/lang/String;)Ljava/lang/String;.rejection-names"))
			.isEqualTo("utter_composed");
		assertThat(index.stringPropertyNames()).noneMatch((key) -> key.startsWith("demo.Hooks$Plain"));
	}

	@Test
	void eachClassEntryDescribesTheClassFileJavacWrote() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Hooks.java", """
				package demo;
				public class Hooks {
					public static class Inner {
						@io.mantlehooks.annotation.OnTurnStarted
						void started(Object payload) { }
					}
				}
				"""));
		Path classFile = compiler.classes().resolve("demo/Hooks$Inner.class");
		byte[] bytes = Files.readAllBytes(classFile);
		CRC32 crc = new CRC32();
		crc.update(bytes);
		assertThat(compiler.readIndex().getProperty("demo.Hooks$Inner.class-file")).isEqualTo(bytes.length + ","
				+ Long.toHexString(crc.getValue()) + "," + Files.getLastModifiedTime(classFile).toMillis());
		assertThat(compiler.readIndex().getProperty("demo.Hooks.class-file")).isNull();
	}

	@Test
	void anIncrementalCompileKeepsOtherClassesAndDropsVanishedOrChangedOnes() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/A.java", hookClass("A", "utter_a"), "demo/B.java",
				hookClass("B", "utter_b"), "demo/C.java", hookClass("C", "utter_c")));
		assertThat(compiler.readIndex().getProperty("demo.C#screen(Ljava/lang/String;)V.rejection-names"))
			.isEqualTo("utter_c");
		Files.delete(compiler.classes().resolve("demo/A.class"));
		// C recompiled without the processor: its entry is stale now
		compiler.compile(false, Map.of("demo/C.java", hookClass("C", "utter_c_changed_without_the_processor")));
		compiler.compile(true, Map.of("demo/B.java", hookClass("B", "utter_b2")));
		Properties index = compiler.readIndex();
		assertThat(index.getProperty("demo.B#screen(Ljava/lang/String;)V.rejection-names")).isEqualTo("utter_b2");
		assertThat(index.stringPropertyNames()).noneMatch((key) -> key.startsWith("demo.A"))
			.noneMatch((key) -> key.startsWith("demo.C"));
	}

	private static String hookClass(String name, String response) {
		return """
				package demo;
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;
				public class %s {
					@ModifyIncomingMessage
					void screen(String text) { throw new HookRejection("no", "%s"); }
				}
				""".formatted(name, response);
	}

}
