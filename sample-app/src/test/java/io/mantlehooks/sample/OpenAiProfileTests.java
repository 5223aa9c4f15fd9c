package io.mantlehooks.sample;

import java.util.Map;

import io.mantlehooks.test.LoopbackOpenAiServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code openai} profile with no code change: the real Spring AI OpenAI client over
 * HTTP, here against the test kit's loopback server instead of api.openai.com, with the
 * same hooks, tools and approvals.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("openai")
class OpenAiProfileTests {

	private static final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@LocalServerPort
	private int port;

	@Autowired
	private ChatModel chatModel;

	@DynamicPropertySource
	static void openAi(DynamicPropertyRegistry registry) {
		registry.add("OPENAI_API_KEY", () -> "test-key");
		registry.add("spring.ai.openai.base-url", openAi::baseUrl);
		registry.add("spring.ai.openai.max-retries", () -> 0);
	}

	@AfterAll
	static void stop() {
		openAi.close();
	}

	@Test
	void theRealClientTalksToTheProviderAndTheHooksStillGuardTheTurn() {
		assertThat(this.chatModel).isInstanceOf(OpenAiChatModel.class);
		openAi.toolCall("call_1", "orderStatus", "{\"orderId\":\"42\"}").text("It shipped.");
		Map<String, Object> reply = RestClient.create("http://127.0.0.1:" + this.port)
			.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", "openai-1", "message", "Where is order 42? I am jane@example.com"))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(reply).containsEntry("reply", "It shipped.").containsEntry("outcome", "completed");
		assertThat(openAi.requestBody(0)).contains("[email]").doesNotContain("jane@example.com");
		assertThat(openAi.messages(1)).anySatisfy((message) -> assertThat(message).startsWith("tool: ")
			.contains("Order A-42 shipped")
			.doesNotContain("jane.doe@example.com"));
	}

}
