package io.mantlehooks.sample;

import java.io.ByteArrayInputStream;
import java.net.ConnectException;
import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * What the sample's API trusts from a client: only a JSON boolean approves a refund, a
 * body has a size limit, the session is the cookie's alone (never an id in the URL), the
 * cookie is {@code SameSite}, and a message never travels in a URL. And who can reach it
 * at all: this machine only, since its console has no login.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ChatApiTrustTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private ShopTools tools;

	private final CookieManager cookies = new CookieManager();

	private RestClient http;

	private String conversation;

	@BeforeEach
	void setUp() {
		this.http = ShopScenarioTests.http(this.port, this.cookies);
		this.conversation = "c-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@ParameterizedTest(name = "\"approve\": {0}")
	@ValueSource(strings = { "1", "2", "0", "\"true\"", "\"yes\"", "null" })
	void onlyAJsonBooleanDecidesAnApproval(String approve) {
		Map<String, Object> paused = post("/api/chat",
				"{\"conversationId\":\"" + this.conversation + "\",\"message\":\"Please refund 30 EUR for order 42\"}")
			.getBody();
		assertThat(paused).containsEntry("outcome", "awaiting_approval");
		String approvalId = (String) paused.get("approvalId");
		int before = this.tools.refunds().size();
		ResponseEntity<Map<String, Object>> decided = post("/api/approvals/" + approvalId,
				"{\"conversationId\":\"" + this.conversation + "\",\"approve\":" + approve + "}");
		assertThat(decided.getStatusCode().value()).isEqualTo(400);
		assertThat(this.tools.refunds()).hasSize(before);
		// the batch still waits, for a real decision
		assertThat(post("/api/approvals/" + approvalId,
				"{\"conversationId\":\"" + this.conversation + "\",\"approve\":true}")
			.getBody()).containsEntry("outcome", "completed");
		assertThat(this.tools.refunds()).hasSize(before + 1);
	}

	@Test
	void aBodyOverTheLimitIsRefusedWithoutATurn() throws Exception {
		String huge = "{\"conversationId\":\"" + this.conversation + "\",\"message\":\"" + "a".repeat(1_000_000)
				+ "\"}";
		HttpClient client = HttpClient.newBuilder().cookieHandler(this.cookies).build();
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + "/api/chat"))
			.header("Content-Type", "application/json")
			.timeout(Duration.ofSeconds(30));
		// with its length declared, and sent in chunks of unknown length
		HttpResponse<String> declared = client.send(request.POST(HttpRequest.BodyPublishers.ofString(huge)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(declared.statusCode()).isEqualTo(413);
		HttpResponse<String> chunked = client.send(
				request.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(huge.getBytes())))
					.build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(chunked.statusCode()).isEqualTo(413);
		assertThat(chunked.body()).contains("The body must be at most");
		// no turn ran: the conversation has no transcript yet
		assertThat(this.http.get()
			.uri("/api/conversations/{id}/transcript", this.conversation)
			.retrieve()
			.body(String.class)).isEqualTo("[]");
	}

	@Test
	void theSessionIsTheCookiesAloneAndTheCookieIsSameSite() throws Exception {
		HttpResponse<String> first = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(base() + "/api/chat"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers
					.ofString("{\"conversationId\":\"" + this.conversation + "\",\"message\":\"Hello\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(first.statusCode()).isEqualTo(200);
		String setCookie = first.headers().firstValue("Set-Cookie").orElseThrow();
		assertThat(setCookie).contains("SameSite=Strict").contains("HttpOnly");
		String sessionId = HttpCookie.parse(setCookie).get(0).getValue();
		// another client that names the first one's session in the URL is not that client
		HttpResponse<String> borrowed = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(base() + "/api/chat;jsessionid=" + sessionId))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers
					.ofString("{\"conversationId\":\"" + this.conversation + "\",\"message\":\"Refund order 42\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(borrowed.statusCode()).isEqualTo(403);
	}

	@Test
	void aMessageNeverTravelsInAUrl() throws Exception {
		HttpResponse<String> query = HttpClient.newHttpClient()
			.send(HttpRequest
				.newBuilder(URI.create(
						base() + "/api/chat/stream?conversationId=" + this.conversation + "&message=my%20card%204111"))
				.header("Accept", "text/event-stream")
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(query.statusCode()).isEqualTo(405);
		assertThat(ShopScenarioTests.stream(this.port, this.cookies, this.conversation, "Hello")).last()
			.asString()
			.startsWith("done ");
	}

	@Test
	void theAppIsReachableFromThisMachineOnly() throws Exception {
		// the console shows every conversation and has no login in the demo
		List<InetAddress> network = Collections.list(NetworkInterface.getNetworkInterfaces())
			.stream()
			.filter(ChatApiTrustTests::isUp)
			.flatMap(NetworkInterface::inetAddresses)
			.filter((address) -> !address.isLoopbackAddress() && !address.isLinkLocalAddress())
			.toList();
		assumeFalse(network.isEmpty(), "this machine has no address but loopback");
		for (InetAddress address : network) {
			try (Socket socket = new Socket()) {
				assertThatExceptionOfType(ConnectException.class)
					.as("connecting to " + address.getHostAddress() + ":" + this.port)
					.isThrownBy(() -> socket.connect(new InetSocketAddress(address, this.port), 5000));
			}
		}
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 5000);
			assertThat(socket.isConnected()).isTrue();
		}
	}

	private static boolean isUp(NetworkInterface network) {
		try {
			return network.isUp();
		}
		catch (SocketException ex) {
			return false;
		}
	}

	private String base() {
		return "http://127.0.0.1:" + this.port;
	}

	private ResponseEntity<Map<String, Object>> post(String path, String json) {
		return this.http.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_JSON)
			.body(json)
			.retrieve()
			.toEntity(new ParameterizedTypeReference<>() {
			});
	}

}
