package io.mantlehooks.sample;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.test.HookResult;
import io.mantlehooks.test.HookTester;
import io.mantlehooks.test.TestPayloads;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's hooks as unit tests with the test kit: no Spring context, real runner
 * semantics. The README's test-kit example is this class.
 */
class SampleHooksTests {

	@Test
	void guardsDoTheirJobs() {
		try (HookTester hooks = HookTester.of(new ToolGuards(), new GuardHooks())) {
			HookResult<ToolCallPayload> call = hooks
				.run(TestPayloads.toolCall("orderStatus").argument("orderId", "42").build());
			assertThat(call.payload().arguments()).containsEntry("orderId", "A-42");

			HookResult<ToolCallPayload> big = hooks
				.run(TestPayloads.toolCall("refund").argument("amount", 5000).build());
			assertThat(big.retry().feedback()).contains("need a manager");

			HookResult<IncomingMessagePayload> pitch = hooks.run(TestPayloads.incomingMessage("Buy crypto!").build());
			assertThat(pitch.rejection().responseMessage()).contains("utter_spam_rejected");

			HookResult<ModelResponsePayload> guess = hooks.run(TestPayloads.modelResponse("I guess so").build());
			assertThat(guess.retried()).isTrue();
		}
	}

}
