package io.mantlehooks.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.WipeTools;
import io.mantlehooks.approval.ApprovalResumer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.test.ScriptedChatModel;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Who may decide a paused batch through the {@code mantlehooks} endpoint, over HTTP: by
 * default nobody (the endpoint is read-only, the console says so), with
 * {@code management.endpoint.mantlehooks.access=unrestricted} a request whose
 * {@code approve} is a JSON boolean, and the operator who decided is in the log and the
 * transcript.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConsoleDecisionsTests {

	private static final String APPROVE = "{\"approve\":true}";

	@Test
	void byDefaultTheEndpointIsReadOnlyAndAPostRunsNothing() throws Exception {
		try (ConfigurableApplicationContext app = start()) {
			String approvalId = pause(app);
			String port = app.getEnvironment().getProperty("local.server.port");

			HttpResponse<String> post = post(port, approvalId, APPROVE, null);
			assertThat(post.statusCode()).as("Boot does not map the write operation").isEqualTo(405);
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(0);
			assertThat(waiting(app, approvalId)).as("the batch still waits").isTrue();

			// reading still works, and says why there are no decisions
			HttpResponse<String> turns = ConsoleServer.get(port, "/actuator/mantlehooks/turns");
			assertThat(turns.statusCode()).isEqualTo(200);
			assertThat(turns.body()).contains("\"canDecide\":false")
				.contains("\"decisionsOff\":\"endpoint_read_only\"")
				.contains(approvalId);
		}
	}

	@Test
	void unrestrictedAccessDecidesAndTheConsoleSaysSo() throws Exception {
		try (ConfigurableApplicationContext app = start("management.endpoint.mantlehooks.access=unrestricted")) {
			String approvalId = pause(app);
			String port = app.getEnvironment().getProperty("local.server.port");
			assertThat(ConsoleServer.get(port, "/actuator/mantlehooks/turns").body()).contains("\"canDecide\":true")
				.contains("\"decisionsOff\":null");

			HttpResponse<String> post = post(port, approvalId, APPROVE, null);
			assertThat(post.statusCode()).isEqualTo(200);
			assertThat(post.body()).contains("\"outcome\":\"approved\"");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(1);
		}
	}

	@Test
	void approveMustBeAJsonBoolean() throws Exception {
		try (ConfigurableApplicationContext app = start("management.endpoint.mantlehooks.access=unrestricted")) {
			String approvalId = pause(app);
			String port = app.getEnvironment().getProperty("local.server.port");
			for (String approve : List.of("\"yes\"", "\"on\"", "1", "\"true\"")) {
				HttpResponse<String> post = post(port, approvalId, "{\"approve\":" + approve + "}", null);
				assertThat(post.statusCode()).as("approve: %s", approve).isEqualTo(400);
				assertThat(post.body()).as("approve: %s", approve)
					.contains("'approve' must be a JSON boolean (true or false), not a "
							+ (approve.startsWith("\"") ? "string" : "number"));
				assertThat(app.getBean(WipeTools.class).wiped).as("approve: %s", approve).hasValue(0);
				assertThat(waiting(app, approvalId)).as("approve: %s", approve).isTrue();
			}
			// nor from the query string, which Actuator lets override the body
			HttpResponse<String> query = send(port, "/actuator/mantlehooks/approvals/" + approvalId + "?approve=true",
					"{\"approve\":false}", null);
			assertThat(query.statusCode()).isEqualTo(400);
			assertThat(query.body()).contains("not a query parameter");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(0);
			assertThat(waiting(app, approvalId)).isTrue();
			// a query string that is no valid URL encoding is refused, not a 500
			String malformed = rawPost(port, "/actuator/mantlehooks/approvals/" + approvalId + "?%=1", APPROVE);
			assertThat(malformed).startsWith("HTTP/1.1 400");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(0);
			assertThat(waiting(app, approvalId)).isTrue();

			assertThat(post(port, approvalId, "{\"approve\":false,\"reason\":\"not now\"}", null).body())
				.contains("\"outcome\":\"denied\"");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(0);
			assertThat(waiting(app, approvalId)).isFalse();
		}
	}

	@Test
	void onAManagementPortOfItsOwnApproveMustBeAJsonBooleanToo() throws Exception {
		try (ConfigurableApplicationContext app = start("management.endpoint.mantlehooks.access=unrestricted",
				"management.server.port=0", "management.server.address=127.0.0.1")) {
			String approvalId = pause(app);
			String management = app.getEnvironment().getProperty("local.management.port");
			HttpResponse<String> post = post(management, approvalId, "{\"approve\":\"true\"}", null);
			assertThat(post.statusCode()).isEqualTo(400);
			assertThat(post.body()).contains("'approve' must be a JSON boolean (true or false), not a string");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(0);
			assertThat(post(management, approvalId, APPROVE, null).body()).contains("\"outcome\":\"approved\"");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(1);
		}
	}

	@Test
	void theOperatorWhoDecidedIsInTheLogAndTheTranscript(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext app = start("management.endpoint.mantlehooks.access=unrestricted")) {
			String port = app.getEnvironment().getProperty("local.server.port");
			String approved = pause(app);
			assertThat(post(port, approved, APPROVE, "alice").body()).contains("\"outcome\":\"approved\"");
			String denied = pause(app);
			assertThat(post(port, denied, "{\"approve\":false,\"reason\":\"too risky\"}", null).body())
				.contains("\"outcome\":\"denied\"");

			List<TranscriptEntry> decisions = app.getBean(TranscriptStore.class)
				.find("c-1")
				.stream()
				.filter((entry) -> entry.channel().equals(TurnConsole.CHANNEL))
				.toList();
			assertThat(decisions).hasSize(2);
			assertThat(decisions.get(0)).satisfies((entry) -> {
				assertThat(entry.senderId()).isEqualTo("alice");
				assertThat(entry.role()).isEqualTo(TranscriptRole.USER);
				assertThat(entry.text()).isEqualTo("Approved in the turn console by alice.");
				assertThat(entry.outcome()).isEqualTo("approved");
				assertThat(entry.turnId()).isNotEmpty();
			});
			assertThat(decisions.get(1)).satisfies((entry) -> {
				assertThat(entry.senderId()).isEmpty();
				assertThat(entry.text()).isEqualTo("Denied in the turn console (no operator signed in): too risky");
				assertThat(entry.outcome()).isEqualTo("denied");
			});
			// the resumed turns themselves still speak for the conversation's sender
			assertThat(app.getBean(TranscriptStore.class).find("c-1"))
				.filteredOn((entry) -> entry.turnId().equals(decisions.get(0).turnId())
						&& !entry.channel().equals(TurnConsole.CHANNEL))
				.isNotEmpty()
				.allSatisfy((entry) -> assertThat(entry.senderId()).isEqualTo("u-1"));
			// the console shows the decision with the resumed turn
			assertThat(app.getBean(TurnConsole.class).turn(decisions.get(0).turnId()).orElseThrow().transcript())
				.extracting(TurnConsole.TranscriptLine::outcome)
				.contains("approved");
		}
		assertThat(output).contains("Turn console: approval ")
			.contains("approve by 'alice': approved")
			.contains("deny by an operator who is not signed in: denied");
	}

	@Test
	void anEndpointCreatedReadOnlyDecidesNothingWhenCalledDirectly() throws Exception {
		try (ConfigurableApplicationContext app = start("management.endpoint.mantlehooks.access=unrestricted")) {
			String approvalId = pause(app);
			MantleHooksEndpoint readOnly = new MantleHooksEndpoint(app.getBean(HookRegistry.class),
					app.getBean(HookRunner.class), app.getBean(MantleHooksProperties.class),
					app.getBean(TurnConsole.class), Access.READ_ONLY);
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> readOnly.decide("approvals", approvalId, "true", null, () -> "alice"))
				.withMessageContaining("management.endpoint.mantlehooks.access=unrestricted");
			assertThat(app.getBean(WipeTools.class).wiped).hasValue(0);
			assertThat(readOnly.turns("turns").canDecide()).isFalse();
		}
	}

	private static boolean waiting(ConfigurableApplicationContext app, String approvalId) {
		return app.getBean(ApprovalStore.class).find(approvalId, Instant.now()).isPresent();
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return ConsoleServer.application(DecisionsApplication.class)
			.properties("mantle.hooks.console.include-text=true", "mantle.hooks.approvals.tools=wipe",
					"mantle.hooks.transcript.enabled=true")
			.properties(properties)
			.run();
	}

	/** A turn of {@code u-1} in conversation {@code c-1} that pauses for {@code wipe}. */
	private static String pause(ConfigurableApplicationContext app) {
		app.getBean(ScriptedChatModel.class).toolCall("wipe", "{}");
		ChatClientResponse paused = app.getBean(DecisionsApplication.class).chat("wipe it", (spec) -> {
		});
		assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval");
		return (String) paused.context().get(MantleHooks.APPROVAL_ID);
	}

	private static HttpResponse<String> post(String port, String approvalId, String body, String operator)
			throws IOException, InterruptedException {
		return send(port, "/actuator/mantlehooks/approvals/" + approvalId, body, operator);
	}

	/**
	 * POST over a plain socket, for a request target {@link URI} refuses to build; return
	 * the status line.
	 */
	private static String rawPost(String port, String target, String body) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(port))) {
			byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
			String head = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
					+ "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n";
			socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
			socket.getOutputStream().write(bytes);
			socket.getOutputStream().flush();
			return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
				.readLine();
		}
	}

	private static HttpResponse<String> send(String port, String path, String body, String operator)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (operator != null) {
			request.header(OperatorFilter.HEADER, operator);
		}
		return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class DecisionsApplication {

		private final WipeTools tools = new WipeTools();

		private ChatClient chatClient;

		@Bean
		ScriptedChatModel chatModel() {
			// each turn that pauses adds its tool call to the script first
			return new ScriptedChatModel().otherwise((prompt) -> "All wiped.");
		}

		@Bean
		WipeTools wipeTools() {
			return this.tools;
		}

		/** Resumes as the conversation's sender, as the application's own chat would. */
		@Bean
		ApprovalResumer approvalResumer(ChatClient.Builder builder) {
			this.chatClient = builder.build();
			return (PendingApproval approval, boolean approved, String reason) -> chat(
					approved ? "Approved in the console." : "Declined in the console.",
					approved ? MantleHooks.approve(approval.id()) : MantleHooks.deny(approval.id(), reason));
		}

		/**
		 * Servlet authentication as a container would do it: a principal on the request.
		 */
		@Bean
		Filter operatorFilter() {
			return new OperatorFilter();
		}

		ChatClientResponse chat(String text, Consumer<ChatClient.AdvisorSpec> advisors) {
			return this.chatClient.prompt()
				.user(text)
				.tools(this.tools)
				.advisors(MantleHooks.identity("u-1", Channel.of("rest")))
				.advisors((spec) -> spec.param(ChatMemory.CONVERSATION_ID, "c-1"))
				.advisors(advisors)
				.call()
				.chatClientResponse();
		}

	}

	/** Signs the request in as the operator its test header names. */
	static class OperatorFilter implements Filter {

		static final String HEADER = "X-Test-Operator";

		@Override
		public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
				throws IOException, ServletException {
			HttpServletRequest http = (HttpServletRequest) request;
			String operator = http.getHeader(HEADER);
			chain.doFilter((operator != null) ? new HttpServletRequestWrapper(http) {

				@Override
				public Principal getUserPrincipal() {
					return () -> operator;
				}

			} : request, response);
		}

	}

}
