package io.mantlehooks.processor;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.SourceVersion;
import javax.tools.Diagnostic;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a compiler that is not javac (Eclipse's, say) the processor cannot see method
 * bodies: it says so in a note and writes nothing.
 */
class OtherCompilerTests {

	@Test
	void anotherCompilerGetsANoteAndNoIndex() {
		List<String> notes = new ArrayList<>();
		List<String> calls = new ArrayList<>();
		Messager messager = (Messager) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { Messager.class }, (proxy, method, args) -> {
					if (method.getName().equals("printMessage") && args[0] == Diagnostic.Kind.NOTE) {
						notes.add(args[1].toString());
					}
					return null;
				});
		ProcessingEnvironment environment = (ProcessingEnvironment) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { ProcessingEnvironment.class }, (proxy, method, args) -> {
					calls.add(method.getName());
					return switch (method.getName()) {
						case "getMessager" -> messager;
						case "getOptions" -> Map.of();
						case "getSourceVersion" -> SourceVersion.RELEASE_17;
						default -> null;
					};
				});
		SignalIndexProcessor processor = new SignalIndexProcessor();
		processor.init(environment);
		assertThat(processor.process(Set.of(), null)).isFalse();
		assertThat(notes).singleElement().asString().contains("not javac").contains("no hook signal index");
		assertThat(calls).doesNotContain("getFiler");
	}

}
