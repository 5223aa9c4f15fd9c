package io.mantlehooks.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTests {

	@Test
	void demoConversationRunsThroughTheHooks(CapturedOutput output) {
		SampleApplication.main(new String[0]);
		assertThat(output).contains("bot > You said: Hello!")
			.contains("bot > You said: My card is [card number], is it blocked?")
			.doesNotContain("You said: My card is 4111")
			.contains("bot > Sorry, I can't help with that.")
			.doesNotContain("You said: Can you send me spam?")
			.contains("Hook point incoming-message: modify hook 'supportHooks.maskCardNumbers', 1 observer");
	}

}
