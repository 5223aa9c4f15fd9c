package io.mantlehooks.sample;

import java.net.CookieManager;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.console.RecordedTurn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.WebDriver;
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
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The turn console's list in a real browser while turns come and go: the page polls only
 * for what changed since its last poll, and merges it into what it shows, so new turns
 * appear, a turn listed while it runs shows when it finished, and the turns it had stay.
 * A second {@code ChatClient}, agent {@code held}, has a model-request hook that waits
 * until the test lets it go, so its turn is listed while it runs.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@Import(ConsolePollingBrowserTests.Held.class)
class ConsolePollingBrowserTests extends BrowserTests {

	@LocalServerPort
	private int port;

	@Autowired
	@Qualifier("heldClient")
	private ChatClient held;

	@Autowired
	private HeldHooks hooks;

	@AfterEach
	void letGo() {
		this.hooks.gate.countDown();
	}

	@Test
	void theListTakesNewTurnsAndTurnsThatFinishAfterTheyWereListedFromPollsOfWhatChanged() throws Exception {
		RestClient http = ShopScenarioTests.http(this.port, new CookieManager());
		String conversation = "polling-" + UUID.randomUUID();
		String first = chat(http, conversation, "Where is order 42?");
		awaitFinished(first);
		browser.get(url("/mantle-console"));
		WebDriverWait wait = Browser.waitFor(browser);
		wait.until((page) -> outcome(page, first).equals("completed"));

		// a turn listed while it runs, and again once it finished
		CompletableFuture<String> reply = CompletableFuture.supplyAsync(() -> (String) this.held.prompt()
			.user("Where is my parcel?")
			.advisors(MantleHooks.identity("accounts", Channel.of("back-office")))
			.call()
			.chatClientResponse()
			.context()
			.get(MantleHooks.TURN_ID));
		String running = await().atMost(Browser.WAIT).until(this::heldTurn, Objects::nonNull);
		wait.until((page) -> outcome(page, running).equals("running"));
		this.hooks.gate.countDown();
		assertThat(reply.get(Browser.WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(running);
		awaitFinished(running);
		wait.until((page) -> outcome(page, running).equals("completed"));

		// a turn that came after, with the ones the page had
		String later = chat(http, conversation, "What delivery options do you have?");
		awaitFinished(later);
		wait.until((page) -> outcome(page, later).equals("completed"));
		String firstOutcome = Browser.read(browser, (page) -> outcome(page, first));
		assertThat(firstOutcome).isEqualTo("completed");
		String runningOutcome = Browser.read(browser, (page) -> outcome(page, running));
		assertThat(runningOutcome).isEqualTo("completed");

		// the page asked for the whole list once, then only for what changed
		@SuppressWarnings("unchecked")
		List<String> polls = (List<String>) browser.executeScript("""
				return performance.getEntriesByType('resource').map((entry) => entry.name)
				  .filter((name) => /\\/actuator\\/mantlehooks\\/turns(\\?|$)/.test(name));
				""");
		assertThat(polls).hasSizeGreaterThan(1);
		assertThat(polls.get(0)).doesNotContain("changedSince");
		assertThat(polls.subList(1, polls.size())).allSatisfy((poll) -> assertThat(poll).contains("changedSince="));
	}

	/**
	 * The outcome the list shows for a turn, read at once ("" while it is not listed).
	 */
	private static String outcome(WebDriver page, String turnId) {
		return page.findElements(Browser.row(turnId))
			.stream()
			.map((row) -> row.getAttribute("data-outcome"))
			.filter(Objects::nonNull)
			.findFirst()
			.orElse("");
	}

	private String heldTurn() {
		return this.console.turns()
			.turns()
			.stream()
			.filter((turn) -> turn.agent().equals("held"))
			.map(RecordedTurn::id)
			.findFirst()
			.orElse(null);
	}

	/**
	 * A second agent, {@code held}: a {@code ChatClient} from Boot's builder, and its
	 * hook.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Held {

		@Bean
		ChatClient heldClient(ChatClient.Builder builder) {
			return builder.defaultAdvisors(MantleHooks.agent("held")).build();
		}

		@Bean
		HeldHooks heldHooks() {
			return new HeldHooks();
		}

	}

	/** Holds the agent's model requests until the test lets them go. */
	@ForAgent("held")
	static class HeldHooks {

		final CountDownLatch gate = new CountDownLatch(1);

		@ModifyModelRequest(timeoutMs = 600_000)
		ModelRequestPayload hold(ModelRequestPayload request) throws InterruptedException {
			this.gate.await(10, TimeUnit.MINUTES);
			return request;
		}

	}

}
