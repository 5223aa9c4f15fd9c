package io.mantlehooks.sample;

import io.mantlehooks.test.HookTester;
import io.mantlehooks.test.TestPayloads;
import org.junit.jupiter.api.Test;

import static io.mantlehooks.test.HookAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's hooks as unit tests with the test kit: no Spring context, real runner
 * semantics. The test-kit example of docs/testing.md is this class.
 */
class SampleHooksTests {

	@Test
	void guardsDoTheirJobs() {
		try (HookTester hooks = HookTester.of(new ToolGuards(), new GuardHooks(), new GroundingHooks())) {
			assertThat(hooks.run(TestPayloads.toolCall("orderStatus").argument("orderId", "42").build()))
				.proceededWith((call) -> assertThat(call.arguments()).containsEntry("orderId", "A-42"));
			assertThat(hooks
				.run(TestPayloads.toolCall("refund").argument("orderId", "43").argument("amount", 5000).build()))
				.proceededWith((call) -> assertThat(call.refusal()).isEqualTo(
						"Not refunded: refunds above 1000 EUR need a manager, who will call you back about order A-43."));
			assertThat(
					hooks.run(TestPayloads.toolCall("refund").argument("orderId", "42").argument("amount", 30).build()))
				.proceededWith((call) -> assertThat(call.refusal()).isNull());
			assertThat(hooks.run(TestPayloads.incomingMessage("Buy crypto!").build())).isRejectedWith("sales pitch",
					"utter_spam_rejected");
			assertThat(hooks.run(TestPayloads.modelResponse("Refunds take 5 days.").build())).proceededUnchanged();
			assertThat(hooks.run(TestPayloads.outgoingText("Refunded 30.00 EUR").build()))
				.proceededWith((text) -> assertThat(text.text()).isEqualTo("Refunded €30.00"));
			assertThat(hooks.run(TestPayloads.outgoingText("Internal note: staff code STAFF-50.").build()))
				.isRejectedWith("internal note in the reply", "utter_internal_withheld");
		}
	}

}
