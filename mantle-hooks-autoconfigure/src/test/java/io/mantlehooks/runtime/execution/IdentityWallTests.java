package io.mantlehooks.runtime.execution;

import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.OutgoingTextPayload;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a hook returns keeps only what the hook may change: the engine-owned components of
 * the payload it was given come back.
 */
class IdentityWallTests {

	@Test
	void anOutgoingTextHookCannotMoveOrEndTheSegmentItRewrites() {
		OutgoingTextPayload given = new OutgoingTextPayload("Pay 30 EUR. ", false, "user-1", Map.of("k", "v"),
				Channel.of("web"), 2, false);
		OutgoingTextPayload returned = new OutgoingTextPayload("Pay €30.00. ", true, "someone-else", Map.of(),
				Channel.of("evil"), 0, true);
		OutgoingTextPayload restored = IdentityWall.restore(returned, given);
		assertThat(restored).isEqualTo(new OutgoingTextPayload("Pay €30.00. ", false, "user-1", Map.of("k", "v"),
				Channel.of("web"), 2, false));
	}

	@Test
	void aModelRequestHookCannotChangeTheToolsTheIterationOrWhoIsAsking() {
		ModelRequestPayload given = new ModelRequestPayload(List.<Message>of(new UserMessage("hi")),
				ModelSettings.empty(), List.of("lookup"), 2, "user-1", Map.of("k", "v"), Channel.of("web"));
		ModelRequestPayload returned = new ModelRequestPayload(List.<Message>of(new UserMessage("hello")),
				ModelSettings.empty().withTemperature(0.2), List.of("lookup", "transfer_funds"), 1, "admin", Map.of(),
				Channel.of("evil"));
		ModelRequestPayload restored = IdentityWall.restore(returned, given);
		assertThat(restored.messages()).isSameAs(returned.messages());
		assertThat(restored.modelSettings()).isEqualTo(returned.modelSettings());
		assertThat(restored.toolNames()).containsExactly("lookup");
		assertThat(restored.iteration()).isEqualTo(2);
		assertThat(restored.senderId()).isEqualTo("user-1");
		assertThat(restored.call()).containsExactly(Map.entry("k", "v"));
		assertThat(restored.channel()).isEqualTo(Channel.of("web"));
		// equal but not the engine's own: still replaced
		ModelRequestPayload lookalike = new ModelRequestPayload(given.messages(), given.modelSettings(),
				List.of("lookup"), 2, new String("user-1"), Map.of("k", "v"), Channel.of("web"));
		assertThat(IdentityWall.restore(lookalike, given).senderId()).isSameAs(given.senderId());
	}

	@Test
	void aModelRequestRewrittenThroughItsWithMethodsPassesTheWallAsItIs() {
		ModelRequestPayload given = new ModelRequestPayload(List.<Message>of(new UserMessage("hi")),
				ModelSettings.empty(), List.of("lookup"), 2, "user-1", Map.of("k", "v"), Channel.of("web"));
		ModelRequestPayload rewritten = given.withMessages(List.of(new UserMessage("hello")))
			.withModelSettings(ModelSettings.empty().withTemperature(0.2));
		assertThat(IdentityWall.restore(rewritten, given)).isSameAs(rewritten);
	}

}
