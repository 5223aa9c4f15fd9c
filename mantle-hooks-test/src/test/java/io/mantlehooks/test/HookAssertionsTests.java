package io.mantlehooks.test;

import java.time.Duration;
import java.util.Map;

import io.mantlehooks.HookFailure;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnIncomingMessage;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

import static io.mantlehooks.test.HookAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The test kit's AssertJ assertions pass on what happened and fail, saying what happened,
 * on anything else.
 */
class HookAssertionsTests {

	@Test
	void eachOutcomeHasItsAssertion() {
		try (HookTester hooks = HookTester.of(new Hooks())) {
			assertThat(hooks.run(TestPayloads.incomingMessage("hello").build())).proceededUnchanged()
				.hasObserver("hooks.watch", HookOutcome.PROCEEDED);
			assertThat(hooks.run(TestPayloads.incomingMessage("spam").build())).isRejectedWith("spam",
					"utter_spam_rejected");
			assertThat(hooks.run(TestPayloads.modelResponse("I guess").build())).isRetriedWith("Cite a source.");
			assertThat(hooks.run(TestPayloads.modelResponse("Sure").build()))
				.proceededWith((response) -> Assertions.assertThat(response.text()).isEqualTo("Sure!"));
			assertThat(hooks.run(TestPayloads.toolResult("t", "v").build())).failedOpenWith(HookFailure.Kind.CRASH);
		}
	}

	@Test
	void aWrongExpectationSaysWhatHappened() {
		try (HookTester hooks = HookTester.of(new Hooks())) {
			HookResult<IncomingMessagePayload> rejected = hooks.run(TestPayloads.incomingMessage("spam").build());
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(rejected).proceededUnchanged())
				.withMessageContaining("hooks.screen signalled")
				.withMessageContaining("spam");
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> assertThat(rejected).isRejectedWith("spam", "another_reply"));
			HookResult<ToolResultPayload> crashed = hooks.run(TestPayloads.toolResult("t", "v").build());
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> assertThat(crashed).failedClosedWith(HookFailure.Kind.CRASH))
				.withMessageContaining("failed (CRASH, OPEN)");
		}
	}

	@Test
	void timeoutsAreAssertable() {
		try (HookTester hooks = HookTester.builder()
			.bean(new Hooks())
			.timeout("hooks.crash", Duration.ofMillis(20))
			.build()) {
			assertThat(hooks.run(TestPayloads.toolResult("slow", "v").build()))
				.failedOpenWith(HookFailure.Kind.TIMEOUT);
		}
	}

	static class Hooks {

		@ModifyIncomingMessage
		IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().equals("spam")) {
				throw new HookRejection("spam", "utter_spam_rejected");
			}
			return message;
		}

		@OnIncomingMessage
		void watch(IncomingMessagePayload message) {
		}

		@ModifyModelResponse
		ModelResponsePayload ground(ModelResponsePayload response) {
			if ("I guess".equals(response.text())) {
				throw new RetryModel("Cite a source.");
			}
			return response.withText(response.text() + "!");
		}

		@ModifyToolResult
		ToolResultPayload crash(ToolResultPayload result) throws InterruptedException {
			if (result.toolName().equals("slow")) {
				Thread.sleep(2000);
			}
			throw new IllegalStateException("boom " + Map.of());
		}

	}

}
