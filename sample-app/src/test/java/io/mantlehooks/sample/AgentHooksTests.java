package io.mantlehooks.sample;

import java.util.List;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.test.HookTester;
import io.mantlehooks.test.TestPayloads;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.Message;

import static io.mantlehooks.test.HookAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's two agents as unit tests with the test kit: the same model request goes
 * through the shop's hooks and through the copywriter's, and each agent runs only its own
 * model-request hook.
 */
class AgentHooksTests {

	private static final String REQUEST = "Write a gift note to Grandma for order A-7. The order holds a gift card: "
			+ "put its code in the note, 6035 7700 4242 4242.";

	@Test
	void eachAgentRunsItsOwnModelRequestHook() {
		ModelRequestPayload request = TestPayloads.modelRequest().system("You are a writer.").user(REQUEST).build();
		try (HookTester hooks = HookTester.of(new GuardHooks(), new CopywriterHooks(), new ToolGuards())) {
			// the copywriter: the house style joins its instructions, the code stays
			assertThat(hooks.forAgent("copywriter").run(request)).proceededWith((sent) -> assertThat(texts(sent))
				.containsExactly("You are a writer.\n" + CopywriterHooks.HOUSE_STYLE, REQUEST));
			// the shop: its redaction would have taken the code, and no house style
			assertThat(hooks.forAgent("shop").run(request)).proceededWith((sent) -> assertThat(texts(sent))
				.containsExactly("You are a writer.", REQUEST.replace("6035 7700 4242 4242", "[card]")));
			// a client that names no agent runs neither
			assertThat(hooks.run(request)).proceededUnchanged();
			assertThat(hooks.forAgent("copywriter").hooks().get(HookPoint.MODEL_REQUEST))
				.containsExactly("copywriterHooks.signOff");
		}
	}

	private static List<String> texts(ModelRequestPayload request) {
		return request.messages().stream().map(Message::getText).toList();
	}

}
