package io.mantlehooks.sample;

import java.io.File;
import java.time.Duration;
import java.util.function.Function;

import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Headless Chromium (Debian's {@code chromium} and {@code chromium-driver} packages,
 * which {@code .ci/run} installs; nothing is downloaded) and the steps the browser tests
 * share on the chat page and the console.
 */
final class Browser {

	/** A limit for waiting on the page, not a budget: generous for a loaded machine. */
	static final Duration WAIT = Duration.ofSeconds(60);

	private Browser() {
	}

	static ChromeDriver start() {
		File driver = new File(System.getProperty("chromedriver", "/usr/bin/chromedriver"));
		File chromium = new File(System.getProperty("chromium", "/usr/bin/chromium"));
		assertThat(driver).as("chromedriver: apt-get install -y chromium chromium-driver").isFile();
		assertThat(chromium).as("chromium: apt-get install -y chromium chromium-driver").isFile();
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver)
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions().setBinary(chromium)
			.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
					"--window-size=1400,1000");
		return new ChromeDriver(service, options);
	}

	/**
	 * Send a message from the chat page and wait for its reply.
	 * @return the turn id the reply carries
	 */
	static String send(ChromeDriver browser, String message) {
		int before = browser.findElements(By.cssSelector("#messages li.assistant")).size();
		browser.findElement(By.id("message")).sendKeys(message);
		browser.findElement(By.cssSelector("#composer button")).click();
		By latest = By.cssSelector("#messages li.assistant:nth-of-type(" + 2 * (before + 1) + ")[data-outcome]");
		waitFor(browser).until(ExpectedConditions.presenceOfElementLocated(latest));
		return attribute(browser, latest, "data-turn-id");
	}

	/** The console's row of a turn. */
	static By row(String turnId) {
		return By.cssSelector("#turns tr[data-turn-id='" + turnId + "']");
	}

	/**
	 * Select a turn in the console and wait for its detail. The list is drawn anew every
	 * few seconds, so a row found may be gone when clicked: find it again then.
	 */
	static void open(ChromeDriver browser, String turnId) {
		click(browser, row(turnId));
		waitFor(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), turnId));
	}

	/**
	 * A wait that finds its elements anew on every try and tries again when one was
	 * replaced between finding and using it: the console draws its list of turns anew
	 * every few seconds.
	 */
	static WebDriverWait waitFor(WebDriver browser) {
		WebDriverWait wait = new WebDriverWait(browser, WAIT);
		wait.ignoring(StaleElementReferenceException.class);
		return wait;
	}

	/**
	 * Find the element and click it in one step, again if it was replaced meanwhile.
	 */
	static void click(WebDriver browser, By locator) {
		waitFor(browser).until((page) -> {
			WebElement element = ExpectedConditions.elementToBeClickable(locator).apply(page);
			if (element == null) {
				return false;
			}
			element.click();
			return true;
		});
	}

	/**
	 * Read from the page in one step, again from the start if an element it found was
	 * replaced meanwhile (and until the element is there). The value must not be
	 * {@code null} or {@code false}.
	 */
	static <T> T read(WebDriver browser, Function<WebDriver, T> read) {
		return waitFor(browser).until(read);
	}

	/** Read an attribute of the element, found at the moment of reading. */
	static String attribute(WebDriver browser, By locator, String name) {
		return read(browser, (page) -> page.findElement(locator).getAttribute(name));
	}

	/** Read the text of the element, found at the moment of reading. */
	static String text(WebDriver browser, By locator) {
		return read(browser, (page) -> page.findElement(locator).getText());
	}

}
