package io.mantlehooks.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.CsrfConfigurer;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's console behind Spring Security, as docs/console.md shows it: the console
 * and Actuator need an operator's login, CSRF protection is on, and Approve works from
 * the page in headless Chromium. A {@code POST} that carries the operator's session but
 * not the token is refused and runs nothing. The operator who approved is named in the
 * log and the transcript. Subclasses choose where Spring Security keeps the token.
 */
@ActiveProfiles("console-decisions")
@ExtendWith(OutputCaptureExtension.class)
abstract class SecuredConsoleBrowserTests extends BrowserTests {

	@Autowired
	private TranscriptStore transcript;

	/**
	 * The filter chain of docs/console.md: only the console, Actuator and the login page,
	 * so the shop's own pages and API stay as they are.
	 */
	static SecurityFilterChain operatorsOnly(HttpSecurity http, Customizer<CsrfConfigurer<HttpSecurity>> csrf) {
		return http.securityMatcher("/mantle-console/**", "/actuator/**", "/login")
			.authorizeHttpRequests((requests) -> requests.anyRequest().hasRole("OPERATOR"))
			.formLogin((login) -> login.permitAll())
			.csrf(csrf)
			.build();
	}

	static UserDetailsService operator() {
		return new InMemoryUserDetailsManager(
				User.withUsername("operator").password("{noop}demo-only").roles("OPERATOR").build());
	}

	@Test
	void anOperatorApprovesFromThePageAndARequestWithoutTheTokenRunsNothing(CapturedOutput output) throws Exception {
		browser.get(url("/"));
		String refund = Browser.send(browser, "Refund 30 EUR for order 42");
		assertThat(status("GET", "/actuator/mantlehooks/turns", null)).as("no login, no data").isEqualTo(302);

		browser.get(url("/mantle-console"));
		browser.findElement(By.id("username")).sendKeys("operator");
		browser.findElement(By.id("password")).sendKeys("demo-only");
		browser.findElement(By.cssSelector("button[type='submit']")).click();
		Browser.open(browser, refund);
		assertThat(Browser.text(browser, By.id("approval"))).contains("Waiting for approval: refund");

		// the operator's session alone is not enough: a forged POST is refused
		Cookie session = browser.manage().getCookieNamed("JSESSIONID");
		String approvalId = approvalIdOf(refund);
		int refunds = this.tools.refunds().size();
		assertThat(status("POST", "/actuator/mantlehooks/approvals/" + approvalId, session)).isEqualTo(403);
		assertThat(this.tools.refunds()).hasSize(refunds);

		Browser.click(browser, By.id("approve-button"));
		Browser.waitFor(browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("decision"), "Decision: "));
		assertThat(Browser.text(browser, By.id("decision"))).startsWith("Decision: approved")
			.contains("reply: Refunded €30.00 for order A-42.");
		assertThat(this.tools.refunds()).hasSize(refunds + 1);

		// who approved: the signed-in operator, in the log and in the
		// conversation's transcript
		assertThat(output).contains("Turn console: approval " + approvalId).contains("approve by 'operator': approved");
		String conversation = this.console.turn(refund).orElseThrow().turn().conversationId();
		assertThat(this.transcript.find(conversation))
			.filteredOn((entry) -> entry.channel().equals(TurnConsole.CHANNEL))
			.singleElement()
			.satisfies((entry) -> {
				assertThat(entry.senderId()).isEqualTo("operator");
				assertThat(entry.text()).isEqualTo("Approved in the turn console by operator.");
			});
	}

	private String approvalIdOf(String turnId) {
		return this.console.turn(turnId).orElseThrow().turn().approvalId();
	}

	private int status(String method, String path, Cookie session) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path)))
			.header("Content-Type", "application/json")
			.method(method, ("POST".equals(method)) ? HttpRequest.BodyPublishers.ofString("{\"approve\":true}")
					: HttpRequest.BodyPublishers.noBody());
		if (session != null) {
			request.header("Cookie", session.getName() + "=" + session.getValue());
		}
		return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
	}

}
