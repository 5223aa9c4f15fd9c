package io.mantlehooks.test;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LoopbackOpenAiServer} wired into a {@code @SpringBootTest} through
 * {@code @DynamicPropertySource}, with the real Spring AI OpenAI client.
 */
@SpringBootTest(classes = LoopbackOpenAiServerTests.App.class)
class LoopbackOpenAiServerTests {

	static final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@DynamicPropertySource
	static void openAi(DynamicPropertyRegistry registry) {
		openAi.registerProperties(registry);
	}

	@AfterAll
	static void stopServer() {
		openAi.close();
	}

	@Autowired
	ChatClient.Builder chatClients;

	@Test
	void registeredPropertiesPointTheOpenAiClientAtTheServer() {
		openAi.text("Hello from loopback.");
		String reply = this.chatClients.build().prompt().system("Be brief").user("Hi").call().content();
		assertThat(reply).isEqualTo("Hello from loopback.");
		assertThat(openAi.messages(openAi.requests().size() - 1)).containsExactly("system: Be brief", "user: Hi");
		assertThat(openAi.requests()).last()
			.satisfies((request) -> assertThat(request).containsEntry("model", "fake-model"));
	}

	@Test
	void propertiesAreNamesAndValuesAndTheirPairsAreTheSame() {
		assertThat(openAi.properties()).containsEntry("spring.ai.openai.base-url", openAi.baseUrl())
			.containsEntry("spring.ai.openai.api-key", "test-key")
			.containsEntry("spring.ai.openai.chat.model", "fake-model")
			.containsEntry("spring.ai.openai.max-retries", "0");
		assertThat(openAi.springProperties()).containsExactly("spring.ai.openai.base-url=" + openAi.baseUrl(),
				"spring.ai.openai.api-key=test-key", "spring.ai.openai.chat.model=fake-model",
				"spring.ai.openai.max-retries=0");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
