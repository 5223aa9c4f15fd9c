package io.mantlehooks.sample;

import java.io.File;
import java.time.Duration;

import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
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

	static final Duration WAIT = Duration.ofSeconds(15);

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
		WebElement reply = new WebDriverWait(browser, WAIT).until(ExpectedConditions.presenceOfElementLocated(latest));
		return reply.getAttribute("data-turn-id");
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
		new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class).until((page) -> {
			WebElement row = ExpectedConditions.elementToBeClickable(row(turnId)).apply(page);
			if (row == null) {
				return false;
			}
			row.click();
			return true;
		});
		new WebDriverWait(browser, WAIT)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-title"), turnId));
	}

}
