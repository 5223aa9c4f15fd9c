package io.mantlehooks.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as it starts: the {@code mantlehooks} endpoint is exposed but read-only, so
 * a {@code POST} that would approve a paused refund runs nothing, and the console shows
 * the refund waiting without Approve or Deny, saying why.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ReadOnlyConsoleBrowserTests extends BrowserTests {

	@Test
	void aPostRunsNothingAndTheConsoleSaysDecisionsAreOff() throws Exception {
		browser.get(url("/"));
		String refund = Browser.send(browser, "Refund 30 EUR for order 42");
		String approvalId = this.console.turn(refund).orElseThrow().turn().approvalId();
		int refunds = this.tools.refunds().size();

		// anyone who reaches the port: Boot does not map the write operation
		HttpResponse<String> post = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(url("/actuator/mantlehooks/approvals/" + approvalId)))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"approve\":true}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(post.statusCode()).isEqualTo(405);
		assertThat(this.tools.refunds()).hasSize(refunds);
		assertThat(this.console.turn(refund).orElseThrow().approval().pending()).isTrue();

		browser.get(url("/mantle-console"));
		Browser.open(browser, refund);
		Browser.waitFor(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("decisions-off")));
		assertThat(Browser.text(browser, By.id("approval"))).contains("Waiting for approval: refund");
		assertThat(Browser.text(browser, By.id("decisions-off")))
			.contains("Decisions are off: the mantlehooks endpoint is read-only")
			.contains("management.endpoint.mantlehooks.access=unrestricted");
		assertThat(browser.findElements(By.id("approve-button"))).isEmpty();
		assertThat(browser.findElements(By.id("deny-button"))).isEmpty();
		// the status line is written when the list is loaded: wait for it
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "read-only"));
		assertThat(this.tools.refunds()).hasSize(refunds);
	}

}
