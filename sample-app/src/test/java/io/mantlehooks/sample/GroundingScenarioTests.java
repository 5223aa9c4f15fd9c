package io.mantlehooks.sample;

import java.net.CookieManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample with its {@code grounding} profile, as docs/sample.md's second scenario
 * starts it: a guessed answer goes back to the model, and, since that model-response hook
 * needs whole completions, a streamed reply reaches the page in one piece.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("grounding")
@ExtendWith(OutputCaptureExtension.class)
class GroundingScenarioTests {

	@LocalServerPort
	private int port;

	private final CookieManager cookies = new CookieManager();

	private RestClient http;

	private String conversation;

	@BeforeEach
	void setUp() {
		this.http = ShopScenarioTests.http(this.port, this.cookies);
		this.conversation = "g-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@Test
	void aGuessIsSentBackAndTheAnswerComesFromTheDocuments(CapturedOutput output) {
		Map<String, Object> reply = this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "message", "Can you guess when my parcel ships?"))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(reply).containsEntry("reply",
				"According to our documents: Orders ship within two business days; shipping is free above €50.");
		// logged by a model-request observer, off the critical path
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(output).contains("model call 2 with"));
	}

	@Test
	void aStreamedReplyArrivesInOnePieceWhileAModelResponseHookIsOn() throws Exception {
		List<String> events = ShopScenarioTests.stream(this.port, this.cookies, this.conversation,
				"What delivery options do you have?");
		assertThat(events).filteredOn((event) -> event.startsWith("token "))
			.singleElement()
			.asString()
			.contains("Standard delivery costs €4.90")
			.contains("Orders above €50 ship for free.");
		assertThat(events).last().asString().startsWith("done ").contains("\"outcome\":\"completed\"");
	}

}
