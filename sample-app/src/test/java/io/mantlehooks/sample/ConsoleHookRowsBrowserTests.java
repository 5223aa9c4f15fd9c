package io.mantlehooks.sample;

import java.net.CookieManager;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of a turn's waterfall in a real browser: what each hook decided and which
 * agent it ran for, as the operator reads it on its row and in the row's detail.
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

	@Test
	void eachHookRowSaysWhichAgentItRanFor() {
		RestClient http = ShopScenarioTests.http(this.port, new CookieManager());
		// a shop turn whose tool calls the copywriter, a sub-agent with hooks of its own
		String note = chat(http, "agents-" + UUID.randomUUID(), "Write a gift note for order 7 to Grandma");
		awaitFinished(note);

		browser.get(url("/mantle-console#turn=" + note));
		Browser.waitFor(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), note));
		// the copywriter's model-request hook and the shop's, each with its agent
		By copywriter = row("model-request", "copywriterHooks.signOff");
		By shop = row("model-request", "guardHooks.redactPersonalData");
		assertThat(Browser.attribute(browser, copywriter, "data-agent")).isEqualTo("copywriter");
		assertThat(Browser.text(browser, agent("model-request", "copywriterHooks.signOff"))).isEqualTo("copywriter");
		assertThat(Browser.attribute(browser, shop, "data-agent")).isEqualTo("shop");
		assertThat(Browser.text(browser, agent("model-request", "guardHooks.redactPersonalData"))).isEqualTo("shop");
		// the row in full
		Browser.click(browser, copywriter);
		Browser.waitFor(browser)
			.until(ExpectedConditions.attributeToBe(By.id("hook-detail"), "data-hook", "copywriterHooks.signOff"));
		assertThat(Browser.text(browser, fact("agent"))).isEqualTo("copywriter");

		// the list's row names the sub-agent beside the turn's agent, and the filter
		// for the copywriter finds the turn its hooks ran in
		By agentCell = By.cssSelector("#turns tr[data-turn-id='" + note + "'] td.agent");
		assertThat(Browser.text(browser, agentCell)).startsWith("shop").contains("copywriter");
		Browser.read(browser, (page) -> {
			new Select(page.findElement(By.id("agent-filter"))).selectByVisibleText("copywriter");
			return true;
		});
		Browser.waitFor(browser)
			.until((page) -> page.findElements(By.cssSelector("#turns tr"))
				.stream()
				.allMatch((tr) -> tr.findElement(By.cssSelector("td.agent")).getText().contains("copywriter")));
		assertThat(browser.findElements(Browser.row(note))).hasSize(1);
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

	/** The agent a waterfall row names. */
	private static By agent(String point, String hook) {
		return By.cssSelector(".row[data-point='" + point + "'][data-hook='" + hook + "'] .label .agent");
	}

	private static By timing(String point, String hook) {
		return By.cssSelector(".row[data-point='" + point + "'][data-hook='" + hook + "'] .timing");
	}

}
