package io.mantlehooks.sample;

import java.net.CookieManager;
import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The turn console in a real browser with two agents: the sample's own assistant, through
 * its chat API, and a second {@code ChatClient} from Boot's builder that names itself
 * {@code billing}. Each row shows its turn's agent, the agent filter lists both (and,
 * before any of their turns, every agent the sample's hooks are for) and leaves only the
 * chosen agent's turns, and the turn's detail names its agent.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@Import(AgentConsoleBrowserTests.Billing.class)
class AgentConsoleBrowserTests extends BrowserTests {

	@LocalServerPort
	private int port;

	@Autowired
	@Qualifier("billingClient")
	private ChatClient billing;

	@Test
	void theListShowsEachTurnsAgentAndFiltersByAgent() {
		RestClient http = ShopScenarioTests.http(this.port, new CookieManager());
		String lookup = chat(http, "Where is order 42?");
		String invoice = billing("Please send me the invoice of order 42");
		String delivery = chat(http, "What delivery options do you have?");
		String receipt = billing("I need a receipt for my last payment");
		awaitFinished(lookup, invoice, delivery, receipt);
		// the sample's assistant is an agent of its own (its name is the sample's to
		// choose): read from the console's data, not assumed
		String shop = this.console.turn(lookup).orElseThrow().turn().agent();
		assertThat(shop).isNotBlank().isNotEqualTo("billing");
		assertThat(this.console.turn(delivery).orElseThrow().turn().agent()).isEqualTo(shop);

		browser.get(url("/mantle-console"));
		WebDriverWait wait = Browser.waitFor(browser);
		wait.until((page) -> page.findElements(Browser.row(receipt)).size() == 1);
		// the Agent column
		assertThat(Browser.text(browser, agentCell(lookup))).isEqualTo(shop);
		assertThat(Browser.text(browser, agentCell(delivery))).isEqualTo(shop);
		assertThat(Browser.text(browser, agentCell(invoice))).isEqualTo("billing");
		assertThat(Browser.text(browser, agentCell(receipt))).isEqualTo("billing");
		List<String> header = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector("#turn-list thead th"))
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(header).contains("Agent");
		// the filter offers every agent seen, after "all"
		List<String> choices = Browser.read(browser,
				(page) -> new Select(page.findElement(By.id("agent-filter"))).getOptions()
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(choices).first().isEqualTo("all");
		assertThat(choices).contains("billing", shop).doesNotHaveDuplicates();

		// only the billing agent's turns
		select("billing");
		wait.until((page) -> page.findElements(Browser.row(lookup)).isEmpty());
		List<List<String>> rows = rows();
		assertThat(rows).allSatisfy((row) -> assertThat(row.get(0)).isEqualTo("billing"))
			.extracting((row) -> row.get(1))
			.contains(invoice, receipt)
			.doesNotContain(lookup, delivery);
		// the list is drawn anew every few seconds: the filter holds for turns that came
		// after it was chosen
		String again = billing("And a copy of the invoice of order 43, please");
		String later = chat(http, "What delivery options do you have for order 43?");
		awaitFinished(again, later);
		wait.until((page) -> page.findElements(Browser.row(again)).size() == 1);
		assertThat(rows()).allSatisfy((row) -> assertThat(row.get(0)).isEqualTo("billing"))
			.extracting((row) -> row.get(1))
			.contains(invoice, receipt, again)
			.doesNotContain(later);

		// the detail names the turn's agent
		Browser.open(browser, invoice);
		assertThat(Browser.text(browser, By.id("detail-summary"))).contains("agent billing");

		// and the sample's own turns, with the billing agent's gone
		select(shop);
		wait.until((page) -> page.findElements(Browser.row(invoice)).isEmpty());
		assertThat(rows()).allSatisfy((row) -> assertThat(row.get(0)).isEqualTo(shop))
			.extracting((row) -> row.get(1))
			.contains(lookup, delivery);
		Browser.open(browser, lookup);
		assertThat(Browser.text(browser, By.id("detail-summary"))).contains("agent " + shop);

		select("all");
		wait.until((page) -> !page.findElements(Browser.row(invoice)).isEmpty()
				&& !page.findElements(Browser.row(lookup)).isEmpty());
	}

	@Test
	void theAgentFilterOffersEveryAgentHooksAreConfiguredForBeforeItsTurns() {
		// the sample's hooks name the shop and its copywriter (a sub-agent, whose calls
		// run inside shop turns); default runs the hooks of every agent
		browser.get(url("/mantle-console"));
		Browser.waitFor(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "turns"));
		List<String> choices = Browser.read(browser,
				(page) -> new Select(page.findElement(By.id("agent-filter"))).getOptions()
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(choices).first().isEqualTo("all");
		assertThat(choices).contains("copywriter", "default", "shop").doesNotHaveDuplicates();
		// no turn of theirs was seen: the choices come from the application's hooks
		assertThat(this.console.turns().turns()).extracting((turn) -> turn.agent())
			.doesNotContain("copywriter", "default");
	}

	private String chat(RestClient http, String message) {
		Map<String, Object> reply = http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", "agents", "message", message))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(reply).containsEntry("outcome", "completed");
		return (String) reply.get("turnId");
	}

	private String billing(String message) {
		return (String) this.billing.prompt()
			.user(message)
			.advisors(MantleHooks.identity("accounts", Channel.of("back-office")))
			.call()
			.chatClientResponse()
			.context()
			.get(MantleHooks.TURN_ID);
	}

	private static void select(String agent) {
		Browser.read(browser, (page) -> {
			new Select(page.findElement(By.id("agent-filter"))).selectByVisibleText(agent);
			return true;
		});
	}

	/** Agent and turn id of each row, read in one step. */
	private static List<List<String>> rows() {
		return Browser.read(browser, (page) -> page.findElements(By.cssSelector("#turns tr"))
			.stream()
			.map((tr) -> List.of(tr.findElement(By.cssSelector("td.agent")).getText(), tr.getAttribute("data-turn-id")))
			.toList());
	}

	private static By agentCell(String turnId) {
		return By.cssSelector("#turns tr[data-turn-id='" + turnId + "'] td.agent");
	}

	/**
	 * A second agent: a {@code ChatClient} from Boot's builder (so the starter's hooks
	 * are on it) that names itself {@code billing}.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Billing {

		@Bean
		ChatClient billingClient(ChatClient.Builder builder) {
			return builder.defaultAdvisors(MantleHooks.agent("billing")).build();
		}

	}

}
