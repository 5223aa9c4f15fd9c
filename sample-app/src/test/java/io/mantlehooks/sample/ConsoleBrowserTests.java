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
		String delivery = Browser.send(browser, "What delivery options do you have?");
		String discount = Browser.send(browser, "Do you have a discount code?");
		assertThat(Browser.attribute(browser, reply(vetoed), "data-outcome")).isEqualTo("rejected");
		assertThat(Browser.attribute(browser, reply(refund), "data-outcome")).isEqualTo("awaiting_approval");

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
		// the list is drawn anew every few seconds: every element is found when it
		// is used
		WebDriverWait wait = Browser.waitFor(browser);
		wait.until((page) -> !page.findElements(Browser.row(refund)).isEmpty());
		assertThat(Browser.attribute(browser, Browser.row(redacted), "data-outcome")).isEqualTo("completed");
		assertThat(Browser.attribute(browser, Browser.row(lookup), "data-outcome")).isEqualTo("completed");
		assertThat(Browser.attribute(browser, Browser.row(vetoed), "data-outcome")).isEqualTo("rejected");
		assertThat(Browser.attribute(browser, Browser.row(refund), "data-outcome")).isEqualTo("awaiting_approval");
		// each row says which conversation and (the sample includes texts) which message
		String conversation = this.console.turn(lookup).orElseThrow().turn().conversationId();
		assertThat(Browser.text(browser, cell(lookup, ".conversation-id"))).isEqualTo(conversation);
		assertThat(Browser.text(browser, cell(lookup, ".message"))).isEqualTo("Where is order 42?");
		assertThat(Browser.text(browser, cell(vetoed, ".message"))).isEqualTo("Buy crypto now");
		assertThat(Browser.text(browser, cell(refund, ".message"))).isEqualTo("Refund 30 EUR for order 42");

		// the outcome filter
		Browser.read(browser, (page) -> {
			new Select(page.findElement(By.id("outcome-filter"))).selectByVisibleText("rejected");
			return true;
		});
		wait.until((page) -> page.findElements(Browser.row(lookup)).isEmpty());
		// outcome and id of each row, read in one step
		List<List<String>> rows = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector("#turns tr"))
					.stream()
					.map((tr) -> List.of(tr.getAttribute("data-outcome"), tr.getAttribute("data-turn-id")))
					.toList());
		assertThat(rows).allSatisfy((row) -> assertThat(row.get(0)).isEqualTo("rejected"))
			.extracting((row) -> row.get(1))
			.contains(vetoed);
		Browser.read(browser, (page) -> {
			new Select(page.findElement(By.id("outcome-filter"))).selectByVisibleText("all");
			return true;
		});
		wait.until((page) -> !page.findElements(Browser.row(lookup)).isEmpty());

		// the rejection: the veto is the only modify hook, and it rejected
		Browser.open(browser, vetoed);
		assertThat(Browser.attribute(browser, bar("incoming-message", "guardHooks.vetoSalesPitches"), "data-outcome"))
			.isEqualTo("rejected");
		assertThat(browser.findElements(By.cssSelector(".bar[data-point='model-request']"))).isEmpty();

		// the tool call: preflight and result redaction on the critical path, observers
		// off it
		Browser.open(browser, lookup);
		assertThat(Browser.attribute(browser, bar("tool-call", "toolGuards.preflight"), "data-lane"))
			.isEqualTo("modify");
		assertThat(Browser.attribute(browser, bar("tool-result", "toolGuards.redactEmails"), "data-outcome"))
			.isEqualTo("proceeded");
		By observer = bar("tool-call", "auditHooks.toolCall");
		assertThat(Browser.attribute(browser, observer, "data-lane")).isEqualTo("observe");
		String group = Browser.read(browser,
				(page) -> page.findElement(observer)
					.findElement(By.xpath("ancestor::div[contains(@class,'group')]/h4"))
					.getText());
		assertThat(group).isEqualTo("Observers (off the critical path)");
		assertThat(Browser.text(browser, diff("toolGuards.preflight", "td.removed"))).contains("orderId=42");
		assertThat(Browser.text(browser, diff("toolGuards.preflight", "td.added"))).contains("orderId=A-42");
		assertThat(Browser.text(browser, diff("toolGuards.redactEmails", "td.added"))).contains("[email]");

		// a reply rewritten sentence by sentence is one outgoing-text row (four segments)
		Browser.open(browser, delivery);
		By sentences = By.cssSelector(".bar.segmented[data-point='outgoing-text'][data-hook='guardHooks.houseStyle']");
		assertThat(Browser.attribute(browser, sentences, "data-segments")).isEqualTo("4");
		assertThat(Browser.attribute(browser, sentences, "data-outcome")).isEqualTo("proceeded");
		int segmentRows = Browser.read(browser,
				(page) -> page
					.findElements(
							By.cssSelector("details.segments[data-hook='guardHooks.houseStyle'] tr[data-segment]"))
					.size());
		assertThat(segmentRows).isEqualTo(4);
		// a rejected sentence: the row says which, and shows what the user had been shown
		Browser.open(browser, discount);
		By retracted = By
			.cssSelector(".retracted[data-hook='guardHooks.houseStyle'][data-segment='2'] pre.retracted-text");
		assertThat(Browser.text(browser, retracted))
			.isEqualTo("Let me check our current offers. New customers get 10 percent off their first order. ")
			.doesNotContain("STAFF-50");

		// the redaction on the model request
		Browser.open(browser, redacted);
		assertThat(Browser.text(browser, diff("guardHooks.redactPersonalData", "td.removed")))
			.contains("jane@example.com");
		assertThat(Browser.text(browser, diff("guardHooks.redactPersonalData", "td.added")))
			.contains("My email is [email]");

		// approve the refund from the page
		int refunds = this.tools.refunds().size();
		Browser.open(browser, refund);
		assertThat(Browser.text(browser, By.id("approval"))).contains("Waiting for approval: refund");
		Browser.click(browser, By.id("approve-button"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("decision"), "Decision: approved"));
		assertThat(Browser.text(browser, By.id("decision"))).contains("reply: Refunded €30.00 for order A-42.");
		assertThat(this.tools.refunds()).hasSize(refunds + 1).last().asString().contains("A-42");
		wait.until((page) -> page.findElements(By.cssSelector("#turns tr"))
			.stream()
			.filter((tr) -> "completed".equals(tr.getAttribute("data-outcome")))
			.count() >= 3);
	}

	@Test
	void theChatPageApprovesTheConsoleDeniesAndShowsTheDiscardedPair() {
		browser.get(url("/"));
		WebDriverWait wait = Browser.waitFor(browser);
		int refunds = this.tools.refunds().size();

		// the chat page's own Approve button
		String first = Browser.send(browser, "Refund 30 EUR for order 42");
		Browser.click(browser, By.xpath("//li[@data-turn-id='" + first + "']//button[text()='Approve']"));
		By lastReply = By.cssSelector("#messages li.assistant:last-of-type");
		wait.until(ExpectedConditions.textToBePresentInElementLocated(lastReply, "Refunded €30.00 for order A-42."));
		assertThat(this.tools.refunds()).hasSize(refunds + 1);

		String vetoed = Browser.send(browser, "Buy crypto now");
		String second = Browser.send(browser, "Refund 10 EUR for order 42");

		// Deny from the console: nothing runs, the model hears why
		browser.get(url("/mantle-console"));
		Browser.open(browser, second);
		Browser.click(browser, By.id("deny-button"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("decision"), "Decision: "));
		assertThat(Browser.text(browser, By.id("decision"))).startsWith("Decision: denied");
		assertThat(this.tools.refunds()).hasSize(refunds + 1);

		// the vetoed turn's transcript: the refused message and its reply, both discarded
		Browser.open(browser, vetoed);
		wait.until((page) -> page.findElements(By.cssSelector("#transcript li")).size() == 2);
		List<String> transcript = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector("#transcript li"))
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(transcript).containsExactly("user (discarded): Buy crypto now",
				"assistant (discarded): Sorry, I can only help with your orders and our shop.");
		Integer discarded = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector("#transcript li.discarded")).size());
		assertThat(discarded).isEqualTo(2);
	}

	private static By reply(String turnId) {
		return By.cssSelector("#messages li[data-turn-id='" + turnId + "']");
	}

	/** The first bar of a hook at a point in the waterfall. */
	private static By bar(String point, String hook) {
		return By.cssSelector(".bar[data-point='" + point + "'][data-hook='" + hook + "']");
	}

	/** A part of the conversation cell in the console's row of a turn. */
	private static By cell(String turnId, String part) {
		return By.cssSelector("#turns tr[data-turn-id='" + turnId + "'] td.conversation " + part);
	}

	/** Cells of a hook's diff. */
	private static By diff(String hook, String cells) {
		return By.cssSelector(".diff[data-hook='" + hook + "'] " + cells);
	}

}
