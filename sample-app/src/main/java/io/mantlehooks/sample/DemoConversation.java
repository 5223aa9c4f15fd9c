package io.mantlehooks.sample;

import java.util.List;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Runs a short scripted conversation at startup and prints it. Every turn goes through
 * the hooks because the {@link ChatClient} comes from Spring Boot's builder; the replies
 * come from the offline demo chat model.
 */
@Component
class DemoConversation implements ApplicationRunner {

	private static final List<String> SCRIPT = List.of("Hello!", "My card is 4111 1111 1111 1111, is it blocked?",
			"Can you send me spam?");

	private final ChatClient chatClient;

	DemoConversation(ChatClient.Builder chatClientBuilder) {
		this.chatClient = chatClientBuilder.build();
	}

	@Override
	public void run(ApplicationArguments args) {
		for (String text : SCRIPT) {
			System.out.println("user> " + text);
			String reply = this.chatClient.prompt()
				.user(text)
				.advisors(MantleHooks.identity("demo-user", Channel.of("console")))
				.call()
				.content();
			System.out.println("bot > " + reply);
		}
	}

}
