package io.mantlehooks.sample;

import java.util.Map;

import io.mantlehooks.console.TurnConsole;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.openqa.selenium.chrome.ChromeDriver;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the console's browser tests share: the sample on a random port with its shop tools
 * and turn console, and one headless Chromium ({@link Browser}) for the tests of a class,
 * started before the first and quit after the last. The browser tests run one class at a
 * time, as surefire runs them here, so the classes take turns with the one field.
 */
abstract class BrowserTests {

	static ChromeDriver browser;

	@LocalServerPort
	private int port;

	@Autowired
	ShopTools tools;

	@Autowired
	TurnConsole console;

	@BeforeAll
	static void startBrowser() {
		browser = Browser.start();
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.quit();
			browser = null;
		}
	}

	/**
	 * Send a message through the chat API and return its turn's id.
	 */
	static String chat(RestClient http, String conversationId, String message) {
		Map<String, Object> reply = http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", conversationId, "message", message))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(reply).containsKey("turnId");
		return (String) reply.get("turnId");
	}

	/** Observers run off the critical path: the page shows what was recorded. */
	void awaitFinished(String... turnIds) {
		for (String turnId : turnIds) {
			await().atMost(Browser.WAIT)
				.until(() -> this.console.turn(turnId)
					.map((detail) -> !detail.turn().outcome().equals("running"))
					.orElse(false));
		}
	}

	String url(String path) {
		return "http://127.0.0.1:" + this.port + path;
	}

}
