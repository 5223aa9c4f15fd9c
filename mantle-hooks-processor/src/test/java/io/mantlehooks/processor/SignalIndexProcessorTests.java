package io.mantlehooks.processor;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
		// one line for the class: only the methods that construct a signal are listed
		// (anonymous and subclassAndReference construct none, so they are not); every
		// such method of a hook class is, as a hook inherited by a bean is looked up
		// under
		// its declaring class
		assertThat(compiler.readIndex()).containsExactly(Map.entry("demo.Hooks",
				compiler.fingerprint("demo.Hooks")
						+ " body(Ljava/lang/String;)Ljava/lang/String;=io.mantlehooks.RetryModel"
						+ " lambda(Ljava/lang/String;)Ljava/lang/String;=io.mantlehooks.HookRejection"
						+ " notAHook(Ljava/lang/String;)Ljava/lang/String;=io.mantlehooks.RetryModel"));
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
		assertThat(compiler.readIndex().get("demo.Hooks")).endsWith(" names(Ljava/lang/String;)Ljava/lang/String;"
				+ "=io.mantlehooks.HookRejection=utter_literal,utter_blocked,utter_elsewhere2");
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
		Map<String, String> index = compiler.readIndex();
		assertThat(index.get("demo.Hooks"))
			.endsWith(" screen(Ljava/lang/String;)Ljava/lang/String;=io.mantlehooks.HookRejection=utter_composed");
		assertThat(index).containsOnlyKeys("demo.Hooks");
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
		// a class whose methods construct nothing is its fingerprint alone
		assertThat(compiler.readIndex()).containsExactly(Map.entry("demo.Hooks$Inner", bytes.length + ","
				+ Long.toHexString(crc.getValue()) + "," + Files.getLastModifiedTime(classFile).toMillis()));
	}

	@Test
	void anIncrementalCompileKeepsOtherClassesAndDropsVanishedOrChangedOnes() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/A.java", hookClass("A", "utter_a"), "demo/B.java",
				hookClass("B", "utter_b"), "demo/C.java", hookClass("C", "utter_c")));
		assertThat(compiler.readIndex().get("demo.C")).endsWith("=utter_c");
		Files.delete(compiler.classes().resolve("demo/A.class"));
		// C recompiled without the processor: its entry is stale now
		compiler.compile(false, Map.of("demo/C.java", hookClass("C", "utter_c_changed_without_the_processor")));
		compiler.compile(true, Map.of("demo/B.java", hookClass("B", "utter_b2")));
		assertThat(compiler.readIndex()).containsOnlyKeys("demo.B")
			.containsEntry("demo.B", compiler.fingerprint("demo.B")
					+ " screen(Ljava/lang/String;)V=io.mantlehooks.HookRejection=utter_b2");
	}

	@Test
	void listedMethodsCarryTheDescriptorsOfTheirBytecode() throws Exception {
		// a method not listed constructs nothing, so a listed method's key must be the
		// one the runtime builds from the loaded method: erasure, arrays, varargs, inner
		// classes, type annotations
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Shapes.java", """
				package demo;
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;
				import java.io.*;
				import java.util.*;
				import java.util.function.*;
				public class Shapes<E extends Number> {
					@ModifyIncomingMessage
					String hook(String text) { throw new RetryModel("hook"); }
					<T extends CharSequence> T bounded(T value) { throw new RetryModel("x"); }
					<T extends Object & Runnable> void intersection(T value) { throw new RetryModel("x"); }
					<T extends Runnable & Serializable> T intersection2(T value) { throw new RetryModel("x"); }
					<T, U extends T> U chained(U value) { throw new RetryModel("x"); }
					void varargs(String... values) { throw new RetryModel("x"); }
					<T extends Number> void genericVarargs(T... values) { throw new RetryModel("x"); }
					void arrays(int[][] grid, List<String>[] lists, E[] numbers) { throw new RetryModel("x"); }
					Map.Entry<String, Integer> nested(Map<String, ? extends Number> map) { throw new RetryModel("x"); }
					E generic(E value, Inner inner, Shapes<Integer>.Inner other) { throw new RetryModel("x"); }
					static void primitives(boolean a, byte b, char c, short d, int e, long f, float g, double h) {
						throw new RetryModel("x");
					}
					void annotated(@Nullable String value, List<@Nullable String> values, String @Nullable [] array) {
						throw new RetryModel("x");
					}
					Runnable lambda() { return () -> { throw new RetryModel("x"); }; }
					void nothing(String text) { }
					public class Inner {
						@ModifyIncomingMessage
						String screen(String text) { throw new HookRejection("no"); }
						Inner self(Inner other) { throw new RetryModel("x"); }
					}
					public static class Bridged implements Function<String, String>, Comparable<Bridged> {
						@ModifyIncomingMessage
						public String apply(String text) { throw new RetryModel("x"); }
						public int compareTo(Bridged other) { throw new RetryModel("x"); }
					}
					public enum Kind {
						A;
						@ModifyIncomingMessage
						String screen(String text) { throw new RetryModel("x"); }
					}
				}
				"""));
		Map<String, String> index = compiler.readIndex();
		assertThat(index).containsOnlyKeys("demo.Shapes", "demo.Shapes$Inner", "demo.Shapes$Bridged",
				"demo.Shapes$Kind");
		try (URLClassLoader loader = new URLClassLoader(new URL[] { compiler.classes().toUri().toURL() })) {
			for (Map.Entry<String, String> line : index.entrySet()) {
				Class<?> type = Class.forName(line.getKey(), false, loader);
				Set<String> expected = new TreeSet<>();
				for (Method method : type.getDeclaredMethods()) {
					// bridges, values() and valueOf(..) construct nothing; every
					// other method here but nothing(..) does
					if (!method.isSynthetic() && !method.isBridge() && !method.getName().equals("nothing")
							&& !(type.isEnum() && method.getName().startsWith("value"))) {
						expected.add(method.getName() + descriptor(method));
					}
				}
				Set<String> listed = new TreeSet<>();
				for (String token : line.getValue().substring(line.getValue().indexOf(' ') + 1).split(" ")) {
					listed.add(token.substring(0, token.indexOf('=')));
				}
				assertThat(listed).as(line.getKey()).isEqualTo(expected);
			}
		}
		assertThat(index.get("demo.Shapes")).contains(" bounded(Ljava/lang/CharSequence;)Ljava/lang/CharSequence;=")
			.contains(" intersection(Ljava/lang/Object;)V=")
			.contains(" intersection2(Ljava/lang/Runnable;)Ljava/lang/Runnable;=")
			.contains(" genericVarargs([Ljava/lang/Number;)V=")
			.contains(" generic(Ljava/lang/Number;Ldemo/Shapes$Inner;Ldemo/Shapes$Inner;)Ljava/lang/Number;=")
			.contains(" lambda()Ljava/lang/Runnable;=io.mantlehooks.RetryModel");
	}

	@Test
	void anyRejectionNameAndClassNameIsWrittenAsAsciiAndReadBackExactly() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/Pr\u00fcfung.java", """
				package demo;
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;
				public class Pr\\u00fcfung {
					@ModifyIncomingMessage
					String screen(String text) {
						switch (text) {
							case "a": throw new HookRejection("a", "one,two");
							case "b": throw new HookRejection("b", "with space=and\\\\backslash");
							case "c": throw new HookRejection("c", "gr\\u00fc\\u00dfe \\u2603\\n");
							default: throw new HookRejection("d", "");
						}
					}
				}
				"""));
		byte[] bytes = Files.readAllBytes(compiler.index());
		for (byte b : bytes) {
			assertThat(b).as("an ASCII file").isBetween((byte) 0, (byte) 0x7f);
		}
		String line = compiler.readIndex().get("demo.Pr\u00fcfung");
		assertThat(line).isNotNull();
		String names = line.substring(line.lastIndexOf('=') + 1);
		List<String> read = new ArrayList<>();
		for (String name : names.split(",", -1)) {
			read.add(SourceIndex.unescape(name));
		}
		assertThat(read).containsExactly("one,two", "with space=and\\backslash", "gr\u00fc\u00dfe \u2603\n", "");
		assertThat(new String(bytes, StandardCharsets.US_ASCII)).contains("demo.Pr\\u00fcfung ");
	}

	@Test
	void anIndexOfTheFirstVersionIsReplacedNotMerged() throws Exception {
		TestCompiler compiler = new TestCompiler(this.directory);
		compiler.compile(true, Map.of("demo/A.java", hookClass("A", "utter_a")));
		String fingerprint = compiler.fingerprint("demo.A");
		Files.writeString(compiler.index(),
				"mantle-hooks.source-checks.version=1\ndemo.A.class-file=" + fingerprint
						+ "\ndemo.A\\#screen(Ljava/lang/String;)V.signals=io.mantlehooks.HookRejection\n"
						+ "demo.A\\#screen(Ljava/lang/String;)V.rejection-names=utter_a\n");
		compiler.compile(true, Map.of("demo/B.java", hookClass("B", "utter_b")));
		// A's class file is unchanged, but a first-version entry says nothing about
		// methods it does not list in the second version's terms: A is read at startup
		// until it is compiled again
		assertThat(compiler.readIndex()).containsOnlyKeys("demo.B");
	}

	private static String descriptor(Method method) {
		StringBuilder descriptor = new StringBuilder("(");
		for (Class<?> parameter : method.getParameterTypes()) {
			descriptor.append(descriptor(parameter));
		}
		return descriptor.append(')').append(descriptor(method.getReturnType())).toString();
	}

	private static String descriptor(Class<?> type) {
		if (type.isArray()) {
			return "[" + descriptor(type.getComponentType());
		}
		if (!type.isPrimitive()) {
			return "L" + type.getName().replace('.', '/') + ";";
		}
		return switch (type.getName()) {
			case "void" -> "V";
			case "boolean" -> "Z";
			case "byte" -> "B";
			case "char" -> "C";
			case "short" -> "S";
			case "int" -> "I";
			case "long" -> "J";
			case "float" -> "F";
			case "double" -> "D";
			default -> throw new IllegalArgumentException(type.getName());
		};
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
