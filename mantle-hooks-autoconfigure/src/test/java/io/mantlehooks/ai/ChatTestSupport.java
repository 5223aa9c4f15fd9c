package io.mantlehooks.ai;

import java.util.function.Consumer;

import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksChatClientAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksStoresAutoConfiguration;
import io.mantlehooks.test.LoopbackOpenAiServer;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the chat-turn tests share: an application with Spring AI's OpenAI chat model, tool
 * calling and {@code ChatClient} auto-configuration plus mantle-hooks, talking to a fake
 * OpenAI server on loopback.
 */
final class ChatTestSupport {

	private ChatTestSupport() {
	}

	/**
	 * The auto-configurations of an application with mantle-hooks and a chat model of its
	 * own: tool calling, {@code ChatClient} and mantle-hooks.
	 */
	static AutoConfigurations mantleConfigurations() {
		return AutoConfigurations.of(ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class,
				MantleHooksAutoConfiguration.class, MantleHooksStoresAutoConfiguration.class,
				MantleHooksChatClientAutoConfiguration.class);
	}

	static ApplicationContextRunner contextRunner(LoopbackOpenAiServer openAi) {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(OpenAiChatAutoConfiguration.class, ToolCallingAutoConfiguration.class,
							ChatClientAutoConfiguration.class, MantleHooksAutoConfiguration.class,
							MantleHooksStoresAutoConfiguration.class, MantleHooksChatClientAutoConfiguration.class))
			.withPropertyValues("spring.ai.openai.base-url=" + openAi.baseUrl(), "spring.ai.openai.api-key=test-key",
					"spring.ai.openai.chat.model=fake-model", "spring.ai.openai.max-retries=0",
					// the tests' observers are meant to succeed: a timeout far above what
					// a loaded machine needs
					"mantle.hooks.timeouts.observe=60s", "mantle.hooks.timeouts.modify=60s");
	}

	static ChatClient chatClient(AssertableApplicationContext context) {
		return context.getBean(ChatClient.Builder.class).build();
	}

	/**
	 * Chat memory for one conversation, as an app adds it to a prompt.
	 */
	static Consumer<ChatClient.AdvisorSpec> memory(ChatMemory memory, String conversationId) {
		return (spec) -> spec.advisors(MessageChatMemoryAdvisor.builder(memory).build())
			.param(ChatMemory.CONVERSATION_ID, conversationId);
	}

}
