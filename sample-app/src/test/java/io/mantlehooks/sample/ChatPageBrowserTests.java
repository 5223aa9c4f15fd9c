package io.mantlehooks.sample;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chat page in a real browser while a reply streams: it grows sentence by sentence,
 * each sentence in house style, and a reply the outgoing-text hook vetoes part-way is
 * replaced by the named reply. The page records every text its newest reply shows (a
 * {@code MutationObserver} the test installs), so the steps are asserted, not times.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ChatPageBrowserTests extends BrowserTests {

	/**
	 * Records each text the newest assistant bubble shows, once per change, in
	 * {@code window.replyTexts}.
	 */
	private static final String RECORD_REPLY_TEXTS = """
			window.replyTexts = [];
			const list = document.getElementById('messages');
			new MutationObserver(() => {
			  const replies = list.querySelectorAll('li.assistant .text');
			  if (replies.length === 0) {
			    return;
			  }
			  const text = replies[replies.length - 1].textContent;
			  if (window.replyTexts[window.replyTexts.length - 1] !== text) {
			    window.replyTexts.push(text);
			  }
			}).observe(list, { childList: true, subtree: true, characterData: true });
			""";

	private static final String DELIVERY = "We have three delivery options. Standard delivery costs €4.90 "
			+ "and takes two business days. Express delivery costs €9.90 and arrives the next business day. "
			+ "Orders above €50 ship for free.";

	private static final String WITHHELD = "Sorry, I can't share that. Our current offers are on the shop's offers page.";

	@BeforeEach
	void openTheChatPage() {
		browser.get(url("/"));
		browser.executeScript(RECORD_REPLY_TEXTS);
	}

	@Test
	void aLongReplyGrowsSentenceBySentenceInHouseStyle() {
		String turnId = Browser.send(browser, "What delivery options do you have?");
		List<String> texts = replyTexts();

		assertThat(texts).last().isEqualTo(DELIVERY);
		assertThat(Browser.text(browser, text(turnId))).isEqualTo(DELIVERY);
		assertThat(Browser.attribute(browser, reply(turnId), "data-outcome")).isEqualTo("completed");
		// the reply reached the page in steps, each one the start of the final text
		List<String> before = texts.subList(0, texts.size() - 1).stream().filter((text) -> !text.isEmpty()).toList();
		assertThat(before).hasSizeGreaterThanOrEqualTo(2).allSatisfy((text) -> assertThat(DELIVERY).startsWith(text));
		assertThat(texts).noneMatch((text) -> text.contains("EUR"));
	}

	@Test
	void aVetoedSentenceReplacesTheDraftWithTheNamedReply() {
		String turnId = Browser.send(browser, "Do you have a discount code?");
		List<String> texts = replyTexts();

		assertThat(texts).last().isEqualTo(WITHHELD);
		assertThat(Browser.text(browser, text(turnId))).isEqualTo(WITHHELD);
		assertThat(Browser.attribute(browser, reply(turnId), "data-outcome")).isEqualTo("rejected");
		// the first sentences were shown, then taken back; the vetoed one never arrived
		assertThat(texts).anyMatch((text) -> text.startsWith("Let me check our current offers."));
		assertThat(texts).noneMatch((text) -> text.contains("STAFF-50") || text.contains("Internal note"));
		assertThat(Browser.text(browser, reply(turnId))).doesNotContain("Let me check").doesNotContain("New customers");
	}

	@SuppressWarnings("unchecked")
	private static List<String> replyTexts() {
		return (List<String>) browser.executeScript("return window.replyTexts;");
	}

	private static By reply(String turnId) {
		return By.cssSelector("#messages li[data-turn-id='" + turnId + "']");
	}

	private static By text(String turnId) {
		return By.cssSelector("#messages li[data-turn-id='" + turnId + "'] .text");
	}

}
