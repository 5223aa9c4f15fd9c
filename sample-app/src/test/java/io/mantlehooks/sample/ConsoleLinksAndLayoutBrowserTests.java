package io.mantlehooks.sample;

import java.net.CookieManager;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The turn console in a real browser, as an operator moves around it: a link to a turn
 * ({@code #turn=<id>}) opens that turn also in a tab where the console is already open,
 * and at 1,400 pixels the selected turn leaves the list's columns in view.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ConsoleLinksAndLayoutBrowserTests extends BrowserTests {

	@LocalServerPort
	private int port;

	@Test
	void aTurnLinkOpensThatTurnInATabWhereTheConsoleIsOpen() {
		RestClient http = ShopScenarioTests.http(this.port, new CookieManager());
		String conversation = "links-" + UUID.randomUUID();
		String lookup = chat(http, conversation, "Where is order 42?");
		String delivery = chat(http, conversation, "What delivery options do you have?");
		awaitFinished(lookup, delivery);

		browser.get(url("/mantle-console#turn=" + lookup));
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), lookup));
		// the page stays loaded: only its fragment changes, as when a link to another
		// turn is followed in this tab
		browser.executeScript("window.consoleStayedLoaded = true; location.hash = arguments[0];", "#turn=" + delivery);
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), delivery));
		assertThat(browser.executeScript("return window.consoleStayedLoaded === true;")).isEqualTo(true);
		Browser.waitFor(browser)
			.until((page) -> delivery
				.equals(page.findElement(By.cssSelector("#turns tr.selected")).getAttribute("data-turn-id")));
		// and back to the first: the browser's Back button
		browser.navigate().back();
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), lookup));
	}

	@Test
	void at1400PixelsTheSelectedTurnLeavesTheListsOutcomeMsAndHooksInView() {
		RestClient http = ShopScenarioTests.http(this.port, new CookieManager());
		// the longest outcome, a long message and the sub-agent's hooks: wide cells
		String conversation = "layout-" + UUID.randomUUID();
		String refund = chat(http, conversation, "Refund 30 EUR for order 42");
		String note = chat(http, conversation, "Write a gift note for order 7 to Grandma");
		String lookup = chat(http, conversation, "Where is order 42? It should have arrived two weeks ago, thanks");
		awaitFinished(refund, note, lookup);

		browser.get(url("/mantle-console#turn=" + note));
		Browser.waitFor(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), note));
		Browser.waitFor(browser).until((page) -> page.findElements(Browser.row(lookup)).size() == 1);
		assertThat(browser.executeScript("return window.innerWidth;")).isEqualTo(1400L);

		// per row: the detail pane's box and each of the row's Outcome, ms and Hooks
		// cells, read in one step
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> cells = Browser.read(browser,
				(page) -> (List<Map<String, Object>>) browser.executeScript("""
						const detail = document.getElementById('turn-detail').getBoundingClientRect();
						const header = Array.from(document.querySelectorAll('#turn-list thead th'))
						  .map((th) => th.textContent);
						const found = [];
						document.querySelectorAll('#turns tr').forEach((tr) => {
						  ['Outcome', 'ms', 'Hooks'].forEach((name) => {
						    const box = tr.children[header.indexOf(name)].getBoundingClientRect();
						    found.push({ turn: tr.dataset.turnId, column: name,
						      overlaps: box.left < detail.right && detail.left < box.right
						        && box.top < detail.bottom && detail.top < box.bottom,
						      inWindow: box.left >= 0 && box.right <= document.documentElement.clientWidth });
						  });
						});
						return found;
						"""));
		assertThat(cells).extracting((cell) -> cell.get("turn")).contains(refund, note, lookup);
		assertThat(cells).allSatisfy((cell) -> {
			assertThat(cell.get("overlaps")).as("%s overlaps the detail", cell).isEqualTo(false);
			assertThat(cell.get("inWindow")).as("%s is out of the window", cell).isEqualTo(true);
		});
	}

}
