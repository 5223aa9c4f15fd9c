package io.mantlehooks.sample;

import java.net.CookieManager;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The turn console with {@code include-text=false} (the starter's default; the sample
 * turns it on): neither the JSON nor the page holds any payload text. And the page needs
 * no network: nothing it serves names another origin.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "mantle.hooks.console.include-text=false")
@ActiveProfiles("console-decisions")
class ConsolePrivacyTests {

	private static final Pattern EXTERNAL_URL = Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}");

	@LocalServerPort
	private int port;

	@Test
	void noPayloadTextLeavesTheConsole() {
		RestClient http = http();
		String lookup = chat(http, "Where is order 42? My email is jane@example.com");
		String refund = chat(http, "Refund 30 EUR for order 42");
		String vetoed = chat(http, "Buy crypto now");
		String list = http.get().uri("/actuator/mantlehooks/turns").retrieve().body(String.class);
		assertThat(list).contains(lookup, refund, vetoed).contains("\"includeText\":false");
		// the rows tell turns apart by their conversation, not by a word of the message
		assertThat(list).contains("\"conversationId\":\"privacy\"").contains("\"messagePreview\":null");
		for (String turnId : List.of(lookup, refund, vetoed)) {
			String detail = http.get().uri("/actuator/mantlehooks/turns/{id}", turnId).retrieve().body(String.class);
			assertThat(detail).contains("\"hooks\"").contains("\"transcript\"");
			assertNoText(detail);
		}
		assertNoText(list);
		String page = http.get().uri("/mantle-console").retrieve().body(String.class);
		assertNoText(page);
		String approval = http.get().uri("/actuator/mantlehooks/turns/{id}", refund).retrieve().body(String.class);
		assertThat(approval).contains("\"pending\":true").contains("\"calls\":[\"refund\"]");
	}

	@Test
	void thePageNeedsNoNetwork() {
		RestClient http = http();
		ResponseEntity<String> page = http.get().uri("/mantle-console").retrieve().toEntity(String.class);
		assertThat(page.getHeaders().getFirst("Content-Security-Policy")).startsWith("default-src 'self'");
		for (String body : List.of(page.getBody(), get(http, "/mantle-console/console.js"),
				get(http, "/mantle-console/console.css"), get(http, "/"), get(http, "/chat.js"),
				get(http, "/chat.css"))) {
			assertThat(body).isNotBlank();
			assertThat(EXTERNAL_URL.matcher(body).find()).as("an external URL in %s", body.substring(0, 60)).isFalse();
		}
		assertThat(page.getBody()).contains("src=\"/mantle-console/console.js\"")
			.contains("data-endpoint=\"/actuator/mantlehooks\"");
	}

	@Test
	void theEndpointAnswersNotFoundForUnknownTurnsAndApprovals() {
		RestClient http = http();
		assertThat(http.get()
			.uri("/actuator/mantlehooks/turns/nope")
			.retrieve()
			.toBodilessEntity()
			.getStatusCode()
			.value()).isEqualTo(404);
		Map<String, Object> decision = http.post()
			.uri("/actuator/mantlehooks/approvals/nope")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("approve", true))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(decision).containsEntry("outcome", "approval_not_found");
		assertThat(http.post()
			.uri("/actuator/mantlehooks/approvals/nope")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("reason", "no decision"))
			.retrieve()
			.toBodilessEntity()
			.getStatusCode()
			.value()).isEqualTo(400);
		assertThat(http.post()
			.uri("/actuator/mantlehooks/approvals/nope")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("approve", false, "reason", "x".repeat(1_001)))
			.retrieve()
			.toBodilessEntity()
			.getStatusCode()
			.value()).as("a reason too long").isEqualTo(400);
	}

	private static void assertNoText(String json) {
		assertThat(json).doesNotContain("jane")
			.doesNotContain("[email]")
			.doesNotContain("Where is order")
			.doesNotContain("Order A-42")
			.doesNotContain("crypto")
			.doesNotContain("Refunded")
			.doesNotContain("orderId")
			.doesNotContain("I need your approval");
	}

	private String chat(RestClient http, String message) {
		Map<String, Object> reply = http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", "privacy", "message", message))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		return (String) reply.get("turnId");
	}

	private static String get(RestClient http, String path) {
		return http.get().uri(path).retrieve().body(String.class);
	}

	private RestClient http() {
		return ShopScenarioTests.http(this.port, new CookieManager());
	}

}
