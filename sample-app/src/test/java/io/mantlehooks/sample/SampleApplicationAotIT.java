package io.mantlehooks.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aot.AotDetector;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample built by {@code spring-boot:process-aot} and started in AOT mode on the JVM
 * ({@code -Dspring.aot.enabled=true}, set by the failsafe plugin): the context comes from
 * the generated initializer, and every hook still runs.
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationAotIT {

	@Test
	void hooksRunInTheAotBuiltApplication(CapturedOutput output) throws Exception {
		assertThat(AotDetector.useGeneratedArtifacts()).as("AOT mode").isTrue();
		assertThat(Class.forName(SampleApplication.class.getName() + "__ApplicationContextInitializer")).isNotNull();
		assertThat(getClass().getClassLoader().getResource("META-INF/mantle-hooks/bytecode-checks.properties"))
			.as("bytecode check recorded by the AOT build")
			.isNotNull();
		SampleApplication.main(new String[0]);
		assertThat(output).contains("bot > You said: Hello!")
			.contains("bot > You said: My card is [card number], is it blocked?")
			.doesNotContain("You said: My card is 4111")
			.contains("bot > Sorry, I can't help with that.")
			.contains("Hook point incoming-message: modify hook 'supportHooks.maskCardNumbers', 1 observer");
	}

}
