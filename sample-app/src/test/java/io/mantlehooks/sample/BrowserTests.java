package io.mantlehooks.sample;

import io.mantlehooks.console.TurnConsole;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.openqa.selenium.chrome.ChromeDriver;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the console's browser tests share: the sample on a random port with its shop tools
 * and turn console, and one headless Chromium ({@link Browser}) for the tests of a class,
 * started before the first and quit after the last. The browser tests run one class at a
 * time, as surefire runs them here, so the classes take turns with the one field.
 */
abstract class BrowserTests {

	static ChromeDriver browser;

	@LocalServerPort
	private int port;

	@Autowired
	ShopTools tools;

	@Autowired
	TurnConsole console;

	@BeforeAll
	static void startBrowser() {
		browser = Browser.start();
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.quit();
			browser = null;
		}
	}

	String url(String path) {
		return "http://127.0.0.1:" + this.port + path;
	}

}
