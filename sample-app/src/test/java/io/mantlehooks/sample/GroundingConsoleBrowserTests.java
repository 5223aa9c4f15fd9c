package io.mantlehooks.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.mantlehooks.HookPoint;
import io.mantlehooks.console.TurnRecorder;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The turn console in a real browser with the sample's {@code grounding} profile, whose
 * model-response hook sends a guessed answer back: what tells turns and rows apart. Each
 * turn's row shows its conversation and the first words of its message; the rows and the
 * diffs of a retried model call say which attempt they belong to; a hook name the
 * waterfall cuts is whole on hover and on click; and no timing runs over a row's name, in
 * a wide window and a narrow one.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("grounding")
class GroundingConsoleBrowserTests extends BrowserTests {

	@Autowired
	private TurnRecorder recorder;

	private static final String GUESS = "Can you guess when my parcel ships? Mail me at jane@example.com please";

	/** Where each row's timing is against its track and name, read from the page. */
	private static final String GEOMETRY = """
			return Array.from(document.querySelectorAll('#waterfall .row')).map((row) => {
			  const name = row.querySelector('.label').getBoundingClientRect();
			  const track = row.querySelector('.track').getBoundingClientRect();
			  const timing = row.querySelector('.track > .timing').getBoundingClientRect();
			  return { row: row.dataset.point + ' ' + row.dataset.hook,
			    overName: timing.left < name.right - 0.5, beforeTrack: timing.left < track.left - 0.5,
			    pastTrack: timing.right > track.right + 0.5, visible: timing.width > 0 };
			});""";

	@Test
	void eachRowSaysWhichTurnWhichHookAndWhichAttempt() {
		browser.manage().window().setSize(new Dimension(1400, 1000));
		browser.get(url("/"));
		String guess = Browser.send(browser, GUESS);
		String lookup = Browser.send(browser, "Where is order 42?");
		awaitTurnFinishedObserved(guess, lookup);
		String conversation = this.console.turn(guess).orElseThrow().turn().conversationId();
		assertThat(conversation).startsWith("web-");
		browser.get(url("/mantle-console"));
		Browser.waitFor(browser).until((page) -> !page.findElements(Browser.row(lookup)).isEmpty());

		// the list: the chat page's conversation and the first words of each message
		assertThat(Browser.text(browser, cell(guess, ".conversation-id"))).isEqualTo(conversation);
		assertThat(Browser.text(browser, cell(lookup, ".conversation-id"))).isEqualTo(conversation);
		assertThat(Browser.text(browser, cell(guess, ".message")))
			.isEqualTo("Can you guess when my parcel ships? Mail me at…");
		assertThat(Browser.attribute(browser, cell(guess, ".message"), "title"))
			.isEqualTo("Can you guess when my parcel ships? Mail me at…");
		assertThat(Browser.text(browser, cell(lookup, ".message"))).isEqualTo("Where is order 42?");

		// the guess was sent back once: two attempts of one model call
		Browser.open(browser, guess);
		By grounding = By
			.cssSelector("#waterfall .row[data-point='model-response'][data-hook='groundingHooks.rejectGuesses']");
		List<String> attempts = Browser.read(browser,
				(page) -> page.findElements(grounding)
					.stream()
					.map((row) -> row.findElement(By.cssSelector(".attempt")).getText() + " "
							+ row.findElement(By.cssSelector(".bar")).getAttribute("data-outcome"))
					.toList());
		assertThat(attempts).containsExactly("attempt 1 retried", "attempt 2 proceeded");
		List<String> requests = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector("#waterfall .row[data-point='model-request'] .attempt"))
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(requests).containsExactly("attempt 1", "attempt 2", "attempt 1", "attempt 2");
		// the redaction changed the request of both attempts: each diff says which
		List<String> diffs = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector(".diff[data-hook='guardHooks.redactPersonalData'] h4"))
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(diffs).containsExactly("model-request · guardHooks.redactPersonalData · attempt 1",
				"model-request · guardHooks.redactPersonalData · attempt 2");

		// the waterfall cuts the hook's name; hover and click show it whole
		boolean cut = Browser
			.read(browser,
					(page) -> browser.executeScript(
							"const name = document.querySelector(arguments[0] + ' .name');"
									+ "return name.scrollWidth > name.clientWidth ? 'cut' : 'whole';",
							"#waterfall .row[data-point='model-response'][data-hook='groundingHooks.rejectGuesses']"))
			.equals("cut");
		assertThat(cut).as("the name is cut in the waterfall").isTrue();
		String title = Browser.read(browser,
				(page) -> page.findElements(grounding)
					.get(0)
					.findElement(By.cssSelector(".label"))
					.getAttribute("title"));
		assertThat(title).isEqualTo("model-response · groundingHooks.rejectGuesses · attempt 1");
		Browser.click(browser, grounding);
		Browser.waitFor(browser)
			.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#hook-detail h4")));
		assertThat(Browser.text(browser, By.cssSelector("#hook-detail h4"))).isEqualTo("groundingHooks.rejectGuesses");
		List<String> facts = Browser.read(browser,
				(page) -> page.findElements(By.cssSelector("#hook-detail dt, #hook-detail dd"))
					.stream()
					.map(WebElement::getText)
					.toList());
		assertThat(facts).containsSubsequence("point", "model-response", "lane", "modify", "outcome", "retried",
				"attempt", "1");
	}

	/**
	 * The rows' geometry once every timing is in its place, or as it is after the wait.
	 */
	private List<Map<String, Object>> placed(int width) {
		List<List<Map<String, Object>>> last = new ArrayList<>();
		try {
			Browser.waitFor(browser).until((page) -> {
				List<Map<String, Object>> rows = Browser.read(browser, (reader) -> geometry());
				last.add(0, rows);
				return rows.stream()
					.allMatch((row) -> Boolean.FALSE.equals(row.get("overName"))
							&& Boolean.FALSE.equals(row.get("beforeTrack"))
							&& Boolean.FALSE.equals(row.get("pastTrack")) && Boolean.TRUE.equals(row.get("visible")));
			});
		}
		catch (TimeoutException ex) {
			// the assertions below report what was read last
		}
		return last.isEmpty() ? Browser.read(browser, (page) -> geometry()) : last.get(0);
	}

	@Test
	void noTimingRunsOverItsRowsNameOrOutOfItsTrack() throws InterruptedException {
		browser.manage().window().setSize(new Dimension(1400, 1000));
		browser.get(url("/"));
		String guess = Browser.send(browser, GUESS);
		String lookup = Browser.send(browser, "Where is order 42?");
		awaitTurnFinishedObserved(guess, lookup);
		String lateStart = turnWithALateLongTurnStartedObserver();
		browser.get(url("/mantle-console"));
		Browser.waitFor(browser).until((page) -> !page.findElements(Browser.row(lateStart)).isEmpty());
		// in a narrow window, where a bar leaves little room beside it, and a wide one
		for (int width : new int[] { 1000, 1400 }) {
			browser.manage().window().setSize(new Dimension(width, 1000));
			for (String turnId : List.of(lateStart, guess, lookup)) {
				Browser.open(browser, turnId);
				// the page places timings again after the window's width changed: wait
				// until it has, then check every row
				List<Map<String, Object>> rows = placed(width);
				assertThat(rows).as("rows of %s at %d px", turnId, width)
					.allSatisfy((row) -> assertThat(row).as("row %s at %d px", row.get("row"), width)
						.containsEntry("overName", false)
						.containsEntry("beforeTrack", false)
						.containsEntry("pastTrack", false)
						.containsEntry("visible", true))
					.anySatisfy((row) -> assertThat(row.get("row")).isEqualTo("turn-started auditHooks.turnStarted"));
			}
		}
	}

	/**
	 * Record a turn whose turn-started observer starts well into the turn and runs until
	 * nearly its end (a short turn with a slow observer): the bar a timing placed by
	 * percent put left of it, over the row's name. The recorder is fed the observations
	 * as the registry would; the pauses only shape the bar, nothing is asserted on time.
	 */
	private String turnWithALateLongTurnStartedObserver() throws InterruptedException {
		String turnId = "late-start-" + UUID.randomUUID();
		TurnObservationContext turn = new TurnObservationContext(turnId, "web");
		turn.setConversationId("c-late");
		this.recorder.onStart(turn);
		Thread.sleep(300);
		HookObservationContext started = new HookObservationContext("auditHooks.turnStarted", HookPoint.TURN_STARTED,
				"observe", turnId);
		this.recorder.onStart(started);
		Thread.sleep(400);
		started.setOutcome("proceeded");
		this.recorder.onStop(started);
		this.recorder.onStop(turn);
		return turnId;
	}

	/** Wait until the turns' last observers are recorded: the page shows what was. */
	private void awaitTurnFinishedObserved(String... turnIds) {
		for (String turnId : turnIds) {
			await().atMost(Browser.WAIT)
				.until(() -> this.console.turn(turnId)
					.map((detail) -> detail.turn()
						.hooks()
						.stream()
						.anyMatch((hook) -> hook.hook().equals("auditHooks.turnFinished")))
					.orElse(false));
		}
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> geometry() {
		return (List<Map<String, Object>>) browser.executeScript(GEOMETRY);
	}

	/** A cell's part in the console's row of a turn. */
	private static By cell(String turnId, String part) {
		return By.cssSelector("#turns tr[data-turn-id='" + turnId + "'] td.conversation " + part);
	}

}
