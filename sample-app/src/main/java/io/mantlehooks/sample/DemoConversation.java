package io.mantlehooks.sample;

import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.ModifyResult;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Runs a short scripted conversation at startup and prints it. Until the chat-turn wiring
 * lands, the incoming-message hooks are run here through the {@link HookRunner}; the
 * reply comes from the demo chat model through a {@link ChatClient}.
 */
@Component
class DemoConversation implements ApplicationRunner {

	private static final List<String> SCRIPT = List.of("Hello!", "My card is 4111 1111 1111 1111, is it blocked?");

	private final HookRunner hooks;

	private final ChatClient chatClient;

	DemoConversation(HookRunner hooks, ChatClient.Builder chatClientBuilder) {
		this.hooks = hooks;
		this.chatClient = chatClientBuilder.build();
	}

	@Override
	public void run(ApplicationArguments args) {
		for (String text : SCRIPT) {
			System.out.println("user> " + text);
			System.out.println("bot > " + reply(text));
		}
	}

	private String reply(String text) {
		IncomingMessagePayload incoming = new IncomingMessagePayload(text, "", "demo-user", Map.of(),
				Channel.of("console"));
		this.hooks.observe(HookPoint.INCOMING_MESSAGE, incoming);
		ModifyResult<IncomingMessagePayload> result = this.hooks.modify(HookPoint.INCOMING_MESSAGE, incoming);
		if (!(result instanceof ModifyResult.Proceed<IncomingMessagePayload> proceed)) {
			return "Sorry, I can't help with that.";
		}
		return this.chatClient.prompt().user(proceed.payload().text()).call().content();
	}

}
