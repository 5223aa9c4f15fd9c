package io.mantlehooks.sample;

import java.net.CookieManager;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rows of a turn's waterfall in a real browser: what each hook decided, as the
 * operator reads it on its bar and in the row's detail.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ConsoleHookRowsBrowserTests extends BrowserTests {

	@LocalServerPort
	private int port;

	@Test
	void aRefusedToolCallsBarSaysRefused() {
		RestClient http = ShopScenarioTests.http(this.port, new CookieManager());
		String conversation = "refusal-" + UUID.randomUUID();
		String refused = chat(http, conversation, "Refund 5000 EUR for order 42");
		String lookup = chat(http, conversation, "Where is order 42?");
		awaitFinished(refused, lookup);

		browser.get(url("/mantle-console#turn=" + refused));
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), refused));
		By preflight = bar("tool-call", "toolGuards.preflight");
		assertThat(Browser.attribute(browser, preflight, "data-outcome")).isEqualTo("refused");
		assertThat(Browser.attribute(browser, preflight, "class")).contains("outcome-refused");
		assertThat(Browser.text(browser, timing("tool-call", "toolGuards.preflight"))).startsWith("refused · ");
		// the row in full
		Browser.click(browser, row("tool-call", "toolGuards.preflight"));
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("hook-detail"), "refused"));
		assertThat(Browser.text(browser, fact("outcome"))).isEqualTo("refused");

		// a call the hook let run still says proceeded
		browser.get(url("/mantle-console#turn=" + lookup));
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), lookup));
		assertThat(Browser.attribute(browser, preflight, "data-outcome")).isEqualTo("proceeded");
	}

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
	private void awaitFinished(String... turnIds) {
		for (String turnId : turnIds) {
			await().atMost(Browser.WAIT)
				.until(() -> this.console.turn(turnId)
					.map((detail) -> !detail.turn().outcome().equals("running"))
					.orElse(false));
		}
	}

	/** The first bar of a hook at a point in the waterfall. */
	private static By bar(String point, String hook) {
		return By.cssSelector(".bar[data-point='" + point + "'][data-hook='" + hook + "']");
	}

	private static By row(String point, String hook) {
		return By.cssSelector(".row[data-point='" + point + "'][data-hook='" + hook + "']");
	}

	/** A fact of the row shown in full. */
	private static By fact(String name) {
		return By.xpath("//div[@id='hook-detail']//dt[text()='" + name + "']/following-sibling::dd[1]");
	}

	private static By timing(String point, String hook) {
		return By.cssSelector(".row[data-point='" + point + "'][data-hook='" + hook + "'] .timing");
	}

}
