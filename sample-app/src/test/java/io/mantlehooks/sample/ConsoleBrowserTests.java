package io.mantlehooks.sample;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The turn console in a real browser: headless Chromium (Debian's {@code chromium} and
 * {@code chromium-driver} packages, which {@code .ci/run} installs) drives the sample's
 * chat page, then the console, and approves a refund from the console (the
 * {@code console-decisions} profile turns decisions on).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("console-decisions")
class ConsoleBrowserTests extends BrowserTests {

	private static final Duration WAIT = Browser.WAIT;

	@Test
	void theConsoleShowsTheChatPagesTurnsAndApprovesFromThePage() {
		browser.get(url("/"));
		String redacted = Browser.send(browser, "My email is jane@example.com");
		String lookup = Browser.send(browser, "Where is order 42?");
		String vetoed = Browser.send(browser, "Buy crypto now");
		String refund = Browser.send(browser, "Refund 30 EUR for order 42");
		assertThat(reply(vetoed).getAttribute("data-outcome")).isEqualTo("rejected");
		assertThat(reply(refund).getAttribute("data-outcome")).isEqualTo("awaiting_approval");

		// observers run off the critical path; the page shows what was recorded when
		// it loads
		await().atMost(WAIT)
			.until(() -> this.console.turn(lookup)
				.map((detail) -> detail.turn()
					.hooks()
					.stream()
					.anyMatch((hook) -> hook.hook().equals("auditHooks.toolCall")))
				.orElse(false));
		browser.get(url("/mantle-console"));
		WebDriverWait wait = new WebDriverWait(browser, WAIT);
		wait.until((page) -> !page.findElements(Browser.row(refund)).isEmpty());
		assertThat(browser.findElement(Browser.row(redacted)).getAttribute("data-outcome")).isEqualTo("completed");
		assertThat(browser.findElement(Browser.row(lookup)).getAttribute("data-outcome")).isEqualTo("completed");
		assertThat(browser.findElement(Browser.row(vetoed)).getAttribute("data-outcome")).isEqualTo("rejected");
		assertThat(browser.findElement(Browser.row(refund)).getAttribute("data-outcome"))
			.isEqualTo("awaiting_approval");

		// the outcome filter
		new Select(browser.findElement(By.id("outcome-filter"))).selectByVisibleText("rejected");
		wait.until((page) -> page.findElements(Browser.row(lookup)).isEmpty());
		assertThat(browser.findElements(By.cssSelector("#turns tr")))
			.allSatisfy((tr) -> assertThat(tr.getAttribute("data-outcome")).isEqualTo("rejected"))
			.extracting((tr) -> tr.getAttribute("data-turn-id"))
			.contains(vetoed);
		new Select(browser.findElement(By.id("outcome-filter"))).selectByVisibleText("all");
		wait.until((page) -> !page.findElements(Browser.row(lookup)).isEmpty());

		// the rejection: the veto is the only modify hook, and it rejected
		Browser.open(browser, vetoed);
		assertThat(bar("incoming-message", "guardHooks.vetoSalesPitches").getAttribute("data-outcome"))
			.isEqualTo("rejected");
		assertThat(browser.findElements(By.cssSelector(".bar[data-point='model-request']"))).isEmpty();

		// the tool call: preflight and result redaction on the critical path, observers
		// off it
		Browser.open(browser, lookup);
		assertThat(bar("tool-call", "toolGuards.preflight").getAttribute("data-lane")).isEqualTo("modify");
		assertThat(bar("tool-result", "toolGuards.redactEmails").getAttribute("data-outcome")).isEqualTo("proceeded");
		WebElement observer = bar("tool-call", "auditHooks.toolCall");
		assertThat(observer.getAttribute("data-lane")).isEqualTo("observe");
		assertThat(observer.findElement(By.xpath("ancestor::div[contains(@class,'group')]/h4")).getText())
			.isEqualTo("Observers (off the critical path)");
		WebElement preflightDiff = diff("toolGuards.preflight");
		assertThat(preflightDiff.findElement(By.cssSelector("td.removed")).getText()).contains("orderId=42");
		assertThat(preflightDiff.findElement(By.cssSelector("td.added")).getText()).contains("orderId=A-42");
		assertThat(diff("toolGuards.redactEmails").findElement(By.cssSelector("td.added")).getText())
			.contains("[email]");

		// the redaction on the model request
		Browser.open(browser, redacted);
		WebElement redaction = diff("guardHooks.redactPersonalData");
		assertThat(redaction.findElement(By.cssSelector("td.removed")).getText()).contains("jane@example.com");
		assertThat(redaction.findElement(By.cssSelector("td.added")).getText()).contains("My email is [email]");

		// approve the refund from the page
		int refunds = this.tools.refunds().size();
		Browser.open(browser, refund);
		assertThat(browser.findElement(By.id("approval")).getText()).contains("Waiting for approval: refund");
		browser.findElement(By.id("approve-button")).click();
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("decision"), "Decision: approved"));
		assertThat(browser.findElement(By.id("decision")).getText()).contains("reply: Refunded €30.00 for order A-42.");
		assertThat(this.tools.refunds()).hasSize(refunds + 1).last().asString().contains("A-42");
		wait.until((page) -> page.findElements(By.cssSelector("#turns tr"))
			.stream()
			.filter((tr) -> "completed".equals(tr.getAttribute("data-outcome")))
			.count() >= 3);
	}

	@Test
	void theChatPageApprovesTheConsoleDeniesAndShowsTheDiscardedPair() {
		browser.get(url("/"));
		WebDriverWait wait = new WebDriverWait(browser, WAIT);
		int refunds = this.tools.refunds().size();

		// the chat page's own Approve button
		String first = Browser.send(browser, "Refund 30 EUR for order 42");
		reply(first).findElement(By.xpath(".//button[text()='Approve']")).click();
		By lastReply = By.cssSelector("#messages li.assistant:last-of-type");
		wait.until(ExpectedConditions.textToBePresentInElementLocated(lastReply, "Refunded €30.00 for order A-42."));
		assertThat(this.tools.refunds()).hasSize(refunds + 1);

		String vetoed = Browser.send(browser, "Buy crypto now");
		String second = Browser.send(browser, "Refund 10 EUR for order 42");

		// Deny from the console: nothing runs, the model hears why
		browser.get(url("/mantle-console"));
		Browser.open(browser, second);
		browser.findElement(By.id("deny-button")).click();
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("decision"), "Decision: "));
		assertThat(browser.findElement(By.id("decision")).getText()).startsWith("Decision: denied");
		assertThat(this.tools.refunds()).hasSize(refunds + 1);

		// the vetoed turn's transcript: the refused message and its reply, both discarded
		Browser.open(browser, vetoed);
		wait.until((page) -> page.findElements(By.cssSelector("#transcript li")).size() == 2);
		assertThat(browser.findElements(By.cssSelector("#transcript li"))).extracting(WebElement::getText)
			.containsExactly("user (discarded): Buy crypto now",
					"assistant (discarded): Sorry, I can only help with your orders and our shop.");
		assertThat(browser.findElements(By.cssSelector("#transcript li.discarded"))).hasSize(2);
	}

	private WebElement reply(String turnId) {
		return browser.findElement(By.cssSelector("#messages li[data-turn-id='" + turnId + "']"));
	}

	private static WebElement bar(String point, String hook) {
		List<WebElement> bars = browser
			.findElements(By.cssSelector(".bar[data-point='" + point + "'][data-hook='" + hook + "']"));
		assertThat(bars).as("bar of %s at %s", hook, point).isNotEmpty();
		return bars.get(0);
	}

	private static WebElement diff(String hook) {
		return browser.findElement(By.cssSelector(".diff[data-hook='" + hook + "']"));
	}

}
