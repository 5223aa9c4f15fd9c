package io.mantlehooks.sample;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's scenarios over HTTP, as docs/sample.md lists them: the app runs on a
 * random port with the offline demo model, and each test talks to it as the chat page or
 * an API client would.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
class ShopScenarioTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final String WITHHELD = "Sorry, I can't share that. Our current offers are on the shop's offers page.";

	/**
	 * The gift note for order A-7 as the user reads it: the copywriter's hook added the
	 * sign-off, and the shop's redaction (scoped to the shop) left the code as it is.
	 */
	private static final String GIFT_NOTE = "Gift note for order A-7: Dear Grandma, a little something is on its way "
			+ "to you with order A-7. Your gift card code is 6035 7700 4242 4242. "
			+ "Warm wishes from all of us at Mantle Shop!";

	@LocalServerPort
	private int port;

	@Autowired
	private ShopTools tools;

	@Autowired
	private ChatMemory chatMemory;

	@Autowired
	private ShopAssistant assistant;

	private RestClient http;

	/** The browser's cookies: its session is who it is. */
	private CookieManager cookies;

	private String conversation;

	@BeforeEach
	void setUp() {
		this.cookies = new CookieManager();
		this.http = http(this.port, this.cookies);
		this.conversation = "c-" + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * A client that keeps its session cookie, as a browser does.
	 */
	static RestClient http(int port, CookieManager cookies) {
		return RestClient.builder()
			.baseUrl("http://127.0.0.1:" + port)
			.requestFactory(new JdkClientHttpRequestFactory(HttpClient.newBuilder().cookieHandler(cookies).build()))
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "hi", "ok", "yes", "no", "42", "why?" })
	void aShortMessageGetsAnAnswerAndLogsNoFailure(String message, CapturedOutput output) throws Exception {
		// the knowledge search embeds words of four letters or more: these have none
		ResponseEntity<Map<String, Object>> called = post(this.http, "/api/chat",
				Map.of("conversationId", this.conversation, "message", message));
		assertThat(called.getStatusCode().value()).isEqualTo(200);
		assertThat(called.getBody()).containsEntry("outcome", "completed");
		assertThat((String) called.getBody().get("reply")).isNotBlank().doesNotContain("Sorry, something went wrong");
		List<String> streamed = stream(message);
		assertThat(streamed).last().asString().startsWith("done ").contains("\"outcome\":\"completed\"");
		assertThat(String.join("", streamed)).doesNotContain("Sorry, something went wrong");
		assertThat(output).doesNotContain("zero norm").doesNotContain("Request failed").doesNotContain("\tat ");
	}

	@Test
	void anOrderLookupRunsTheToolWithTheNormalizedIdAndRedactsTheEmail() {
		Map<String, Object> reply = chat("Where is order 42?");
		assertThat(reply).containsEntry("outcome", "completed");
		assertThat((String) reply.get("reply"))
			.isEqualTo("Order A-42 shipped on 2026-11-28 to [email], tracking 1Z999.")
			.doesNotContain("jane.doe@example.com");
		assertThat(this.chatMemory.get(this.conversation).toString()).doesNotContain("jane.doe@example.com");
	}

	@Test
	void aRefundWaitsForApprovalRunsOnceApprovedAndOnlyOnce() {
		Map<String, Object> paused = chat("Please refund 30 EUR for order 42");
		assertThat(paused).containsEntry("outcome", "awaiting_approval");
		assertThat((String) paused.get("reply")).startsWith("I need your approval before I run:\nrefund {")
			.contains("A-42");
		assertThat(this.tools.refunds()).noneMatch((refund) -> refund.contains(this.conversation));
		int before = this.tools.refunds().size();
		String approvalId = (String) paused.get("approvalId");
		Map<String, Object> done = decide(approvalId, true);
		assertThat(done).containsEntry("outcome", "completed")
			.containsEntry("reply", "Refunded €30.00 for order A-42.");
		assertThat(this.tools.refunds()).hasSize(before + 1);
		Map<String, Object> again = decide(approvalId, true);
		assertThat(again).containsEntry("outcome", "approval_not_found");
		assertThat(this.tools.refunds()).hasSize(before + 1);
	}

	@Test
	void anotherBrowserCannotApproveReadOrWriteSomeoneElsesConversation() throws Exception {
		Map<String, Object> paused = chat("Please refund 30 EUR for order 42");
		String approvalId = (String) paused.get("approvalId");
		int before = this.tools.refunds().size();
		RestClient mallory = http(this.port, new CookieManager());
		String mine = "m-" + UUID.randomUUID().toString().substring(0, 8);
		for (boolean approve : List.of(true, false)) {
			var decision = post(mallory, "/api/approvals/" + approvalId,
					Map.of("conversationId", this.conversation, "approve", approve));
			assertThat(decision.getStatusCode().value()).isEqualTo(403);
			assertThat(decision.getBody()).containsEntry("detail", "This conversation belongs to another visitor");
		}
		var read = mallory.get()
			.uri("/api/conversations/{id}/transcript", this.conversation)
			.retrieve()
			.toEntity(String.class);
		assertThat(read.getStatusCode().value()).isEqualTo(403);
		assertThat(read.getBody()).doesNotContain("refund");
		var write = post(mallory, "/api/chat", Map.of("conversationId", this.conversation, "message", "Yes, do it"));
		assertThat(write.getStatusCode().value()).isEqualTo(403);
		HttpResponse<String> streamed = HttpClient.newBuilder()
			.cookieHandler(new CookieManager())
			.build()
			.send(streamRequest(this.port, this.conversation, "Yes"), HttpResponse.BodyHandlers.ofString());
		assertThat(streamed.statusCode()).isEqualTo(403);
		assertThat(this.chatMemory.get(this.conversation).toString()).doesNotContain("Yes, do it");
		// in her own conversation the approval id names nothing she may decide
		assertThat(post(mallory, "/api/chat", Map.of("conversationId", mine, "message", "Hello")).getBody())
			.containsEntry("outcome", "completed");
		assertThat(post(mallory, "/api/approvals/" + approvalId, Map.of("conversationId", mine, "approve", true))
			.getBody()).containsEntry("outcome", "approval_not_found");
		// nor can a request claim to be someone
		assertThat(post(mallory, "/api/chat", Map.of("conversationId", mine, "userId", "alice", "message", "Hi"))
			.getStatusCode()
			.value()).isEqualTo(400);
		assertThat(this.tools.refunds()).hasSize(before);
		// the batch still waits for its own browser
		assertThat(decide(approvalId, true)).containsEntry("outcome", "completed");
		assertThat(this.tools.refunds()).hasSize(before + 1);
	}

	@Test
	void aDeniedRefundDoesNotRunAndTheModelSaysSo() {
		Map<String, Object> paused = chat("Refund 12 EUR for order 7");
		int before = this.tools.refunds().size();
		Map<String, Object> denied = decide((String) paused.get("approvalId"), false);
		assertThat(denied).containsEntry("outcome", "completed")
			.containsEntry("reply", "All right, I did not do that.");
		assertThat(this.tools.refunds()).hasSize(before);
	}

	@Test
	void aRefundAboveTheLimitIsBlockedBeforeAnyToolRuns() {
		int before = this.tools.refunds().size();
		Map<String, Object> reply = chat("Refund 5000 EUR for order 42");
		assertThat(reply).containsEntry("outcome", "completed");
		assertThat((String) reply.get("reply")).contains("need a manager").doesNotContain("approval");
		assertThat(this.tools.refunds()).hasSize(before);
	}

	@Test
	void anOversizedRefundIsRefusedAloneAndTheOtherRefundOfTheBatchRuns() {
		int before = this.tools.refunds().size();
		Map<String, Object> paused = chat("Please refund 30 for order 42 and 5000 for order 43");
		// no approval is asked for the refused refund: the question names the other
		assertThat(paused).containsEntry("outcome", "awaiting_approval");
		assertThat((String) paused.get("reply")).startsWith("I need your approval before I run:\nrefund {")
			.contains("A-42")
			.doesNotContain("A-43")
			.doesNotContain("5000");
		Map<String, Object> done = decide((String) paused.get("approvalId"), true);
		assertThat(done).containsEntry("outcome", "completed")
			.containsEntry("reply", "Refunded €30.00 for order A-42. Not refunded: refunds above €1000 need a "
					+ "manager, who will call you back about order A-43.");
		assertThat(this.tools.refunds().subList(before, this.tools.refunds().size()))
			.containsExactly("Refunded 30.00 EUR for order A-42");
	}

	@Test
	void aSalesPitchIsVetoedWithTheNamedReplyAndKeptAsADiscardedPair() {
		Map<String, Object> reply = chat("Want to buy crypto?");
		assertThat(reply).containsEntry("outcome", "rejected")
			.containsEntry("reply", "Sorry, I can only help with your orders and our shop.");
		chat("Hello");
		List<TranscriptEntry> transcript = this.http.get()
			.uri("/api/conversations/{id}/transcript", this.conversation)
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(transcript).extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::discarded)
			.containsExactly(Tuple.tuple(TranscriptRole.USER, "Want to buy crypto?", true),
					Tuple.tuple(TranscriptRole.ASSISTANT, "Sorry, I can only help with your orders and our shop.",
							true),
					Tuple.tuple(TranscriptRole.USER, "Hello", false),
					Tuple.tuple(TranscriptRole.ASSISTANT, "You said: Hello", false));
		assertThat(this.chatMemory.get(this.conversation).toString()).doesNotContain("crypto");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			value = { "How long does shipping take? | Orders ship within two business days",
					"Can I return an item? | You can return any item within 30 days",
					"What are your support hours? | Our support team is open from 8:00 to 18:00",
					"When is support open? | Our support team is open from 8:00 to 18:00" })
	void theReadmesDocumentQuestionsAreAnsweredFromTheDocuments(String question, String answer) {
		assertThat(chat(question)).extractingByKey("reply")
			.asString()
			.startsWith("According to our documents: " + answer);
	}

	@Test
	void internalDocumentsNeverReachTheAnswer() {
		Map<String, Object> reply = chat("What about refund fraud checks for small orders?");
		assertThat((String) reply.get("reply")).doesNotContain("Internal").doesNotContain("fraud checks are skipped");
	}

	@Test
	void theModelNeverSeesCardNumbersOrEmailAddresses() {
		Map<String, Object> reply = chat("My email is jane@example.com and my card 4111 1111 1111 1111");
		assertThat(reply).containsEntry("reply", "You said: My email is [email] and my card [card]");
	}

	@Test
	void theChatPageStreamsTokensThenTheOutcome() throws Exception {
		List<String> events = stream("Refund 20 EUR for order 42");
		assertThat(events).last()
			.asString()
			.startsWith("done ")
			.contains("\"outcome\":\"awaiting_approval\"")
			.contains("\"approvalId\"");
		assertThat(events).filteredOn((event) -> event.startsWith("token ")).isNotEmpty();
		List<String> plain = stream("Where is order 7?");
		assertThat(String.join("", plain)).contains("being packed for [email]");
		assertThat(plain).last().asString().contains("\"outcome\":\"completed\"");
	}

	@Test
	void aStreamedReplyArrivesSentenceBySentenceInHouseStyle() throws Exception {
		List<String> events = stream("What delivery options do you have?");
		List<String> tokens = events.stream()
			.filter((event) -> event.startsWith("token "))
			.map((event) -> event.substring("token ".length()))
			.toList();
		// the outgoing-text hook passes each sentence as it completes: one event per
		// sentence at least, none of them retracted
		assertThat(tokens).hasSizeGreaterThanOrEqualTo(4).noneMatch((token) -> token.contains("retracted"));
		assertThat(texts(tokens)).isEqualTo("We have three delivery options. Standard delivery costs €4.90 "
				+ "and takes two business days. Express delivery costs €9.90 and arrives the next business day. "
				+ "Orders above €50 ship for free.");
		assertThat(events).last().asString().startsWith("done ").contains("\"outcome\":\"completed\"");
	}

	@Test
	void aStreamedReplyWithAnInternalNoteIsRetractedBeforeTheNoteIsSent() throws Exception {
		List<String> events = stream("Do you have a discount code?");
		List<String> tokens = events.stream()
			.filter((event) -> event.startsWith("token "))
			.map((event) -> event.substring("token ".length()))
			.toList();
		// the sentences before the note went out, then one token replaces them
		assertThat(texts(tokens.subList(0, tokens.size() - 1))).startsWith("Let me check our current offers.");
		assertThat(JSON.readValue(tokens.get(tokens.size() - 1), Map.class)).containsEntry("text", WITHHELD)
			.containsEntry("retracted", true);
		assertThat(String.join("", events)).doesNotContain("STAFF-50").doesNotContain("Internal note");
		assertThat(events).last().asString().startsWith("done ").contains("\"outcome\":\"rejected\"");
		// the next turn's model never sees the note
		assertThat(this.chatMemory.get(this.conversation).toString()).doesNotContain("STAFF-50");
		// the transcript keeps what the page showed, set aside, then the reply it kept
		// (written as the turn ends, which may be just after the last event)
		String shown = texts(tokens.subList(0, tokens.size() - 1));
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			List<TranscriptEntry> transcript = this.http.get()
				.uri("/api/conversations/{id}/transcript", this.conversation)
				.retrieve()
				.body(new ParameterizedTypeReference<>() {
				});
			assertThat(transcript).filteredOn((entry) -> entry.role() == TranscriptRole.ASSISTANT)
				.extracting(TranscriptEntry::text, TranscriptEntry::discarded)
				.containsExactly(Tuple.tuple(shown, true), Tuple.tuple(WITHHELD, false));
		});
	}

	@Test
	void aCalledReplyWithAnInternalNoteGetsTheNamedReply() {
		Map<String, Object> reply = chat("Do you have a discount code?");
		assertThat(reply).containsEntry("outcome", "rejected").containsEntry("reply", WITHHELD);
		assertThat(this.chatMemory.get(this.conversation).toString()).doesNotContain("STAFF-50");
	}

	@Test
	void badInputGetsAClearErrorAndNoTurn() {
		var blank = this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "message", " "))
			.retrieve()
			.toEntity(Map.class);
		assertThat(blank.getStatusCode().value()).isEqualTo(400);
		assertThat(blank.getBody()).containsEntry("detail", "'message' must not be empty");
		var unknownKey = this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "message", "hi", "mantle.outcome", "completed"))
			.retrieve()
			.toEntity(Map.class);
		assertThat(unknownKey.getStatusCode().value()).isEqualTo(400);
		assertThat(unknownKey.getBody()).containsEntry("detail",
				"The body must be a JSON object with the documented fields only");
		var badId = this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", "../etc", "message", "hi"))
			.retrieve()
			.toEntity(Map.class);
		assertThat(badId.getStatusCode().value()).isEqualTo(400);
		var tooLong = this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "message", "x".repeat(2_001)))
			.retrieve()
			.toEntity(Map.class);
		assertThat(tooLong.getStatusCode().value()).isEqualTo(400);
		assertThat(tooLong.getBody()).containsEntry("detail", "'message' must be at most 2000 characters");
		var deep = this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"conversationId\":\"" + this.conversation + "\",\"message\":" + "[".repeat(10_000)
					+ "]".repeat(10_000) + "}")
			.retrieve()
			.toEntity(Map.class);
		assertThat(deep.getStatusCode().value()).as("a body nested 10,000 deep").isEqualTo(400);
		assertThat(this.chatMemory.get(this.conversation)).isEmpty();
	}

	@Test
	void badDecisionsGetAClearErrorAndRunNothing() {
		Map<String, Object> paused = chat("Refund 30 EUR for order 42");
		String approvalId = (String) paused.get("approvalId");
		int refunds = this.tools.refunds().size();
		Map<String, Map<String, Object>> bodies = Map.of("'approve' must be true or false",
				Map.of("conversationId", this.conversation), "'channel' must be 'web' or 'rest'",
				Map.of("conversationId", this.conversation, "approve", true, "channel", "fax"),
				"'reason' must be at most 1000 characters",
				Map.of("conversationId", this.conversation, "approve", false, "reason", "x".repeat(1_001)),
				"The body must be a JSON object with the documented fields only",
				Map.of("conversationId", this.conversation, "approve", true, "mantle.resume", "yes"));
		bodies.forEach((detail, body) -> {
			var refused = this.http.post()
				.uri("/api/approvals/{id}", approvalId)
				.contentType(MediaType.APPLICATION_JSON)
				.body(body)
				.retrieve()
				.toEntity(Map.class);
			assertThat(refused.getStatusCode().value()).as(detail).isEqualTo(400);
			assertThat(refused.getBody()).as(detail).containsEntry("detail", detail);
		});
		var badId = this.http.post()
			.uri("/api/approvals/{id}", "x$y")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "approve", true))
			.retrieve()
			.toEntity(Map.class);
		assertThat(badId.getStatusCode().value()).isEqualTo(400);
		assertThat(this.tools.refunds()).hasSize(refunds);
		// still waiting: a good decision runs it
		assertThat(decide(approvalId, true)).containsEntry("outcome", "completed");
		assertThat(this.tools.refunds()).hasSize(refunds + 1);
	}

	@Test
	void aGiftNoteIsWrittenByTheCopywriterSubAgentWithItsOwnHooksWithinTheShopsTurn() {
		Map<String, Object> reply = chat("Write a gift note for order 7 to Grandma");
		assertThat(reply).containsEntry("outcome", "completed").containsEntry("reply", GIFT_NOTE);
		// the copywriter's call belongs to the shop's turn: the console recorded its
		// hooks
		// there, with what each model call was sent
		String turnId = (String) reply.get("turnId");
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			List<Map<String, Object>> requests = modelRequestHooks(turnId);
			// the copywriter's model was sent its request with the house style and the
			// gift card's code untouched
			assertThat(requests).filteredOn((hook) -> "copywriterHooks.signOff".equals(hook.get("hook")))
				.singleElement()
				.satisfies((hook) -> assertThat((String) hook.get("after")).startsWith("system: You are the copywriter")
					.contains("\nHouse style: end every note with: Warm wishes from all of us at Mantle Shop!\n")
					.endsWith("\nuser: Write a gift note to Grandma for order A-7. The order holds a gift card: "
							+ "put its code in the note, 6035 7700 4242 4242."));
			// the shop's redaction ran on the shop's two model calls only, and the
			// copywriter's house style never reached the shop's model
			assertThat(requests).filteredOn((hook) -> "guardHooks.redactPersonalData".equals(hook.get("hook")))
				.hasSize(2)
				.allSatisfy((hook) -> assertThat((String) hook.get("after")).startsWith("system: You are the assistant")
					.doesNotContain("copywriter")
					.doesNotContain("House style"));
		});
	}

	@Test
	void theShopsTurnIsAgentShopAndItsStreamedReplyCarriesTheCopywritersNote() throws Exception {
		ChatClientResponse response = this.assistant.answer(
				new ShopAssistant.Conversation(this.conversation, "visitor-" + this.conversation, "rest"),
				"Write a gift note to Grandma for order 7");
		assertThat(response.context()).containsEntry(MantleHooks.AGENT, "shop");
		assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo(GIFT_NOTE);
		List<String> events = ShopScenarioTests.stream(this.port, new CookieManager(),
				"s-" + UUID.randomUUID().toString().substring(0, 8), "Write a gift note for order 7 to Grandma");
		assertThat(texts(events.stream()
			.filter((event) -> event.startsWith("token "))
			.map((event) -> event.substring("token ".length()))
			.toList())).isEqualTo(GIFT_NOTE);
		assertThat(events).last().asString().startsWith("done ").contains("\"outcome\":\"completed\"");
	}

	@Test
	void theChatPageIsServed() {
		String page = this.http.get().uri("/").retrieve().body(String.class);
		assertThat(page).contains("<form id=\"composer\">").contains("chat.js");
	}

	/**
	 * The text of token events' data, joined.
	 */
	private static String texts(List<String> tokens) {
		StringBuilder text = new StringBuilder();
		for (String token : tokens) {
			text.append(JSON.readValue(token, Map.class).get("text"));
		}
		return text.toString();
	}

	/** The model-request modify hooks the turn console recorded for a turn. */
	@SuppressWarnings("unchecked")
	private List<Map<String, Object>> modelRequestHooks(String turnId) {
		Map<String, Object> detail = this.http.get()
			.uri("/actuator/mantlehooks/turns/{id}", turnId)
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(detail).containsKey("turn");
		Map<String, Object> turn = (Map<String, Object>) detail.get("turn");
		return ((List<Map<String, Object>>) turn.get("hooks")).stream()
			.filter((hook) -> "model-request".equals(hook.get("point")) && "modify".equals(hook.get("lane")))
			.toList();
	}

	private Map<String, Object> chat(String message) {
		return this.http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "message", message))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
	}

	private static ResponseEntity<Map<String, Object>> post(RestClient http, String path, Map<String, Object> body) {
		return http.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.retrieve()
			.toEntity(new ParameterizedTypeReference<>() {
			});
	}

	private Map<String, Object> decide(String approvalId, boolean approve) {
		return this.http.post()
			.uri("/api/approvals/{id}", approvalId)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", this.conversation, "approve", approve))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
	}

	private List<String> stream(String message) throws Exception {
		return stream(this.port, this.cookies, this.conversation, message);
	}

	/**
	 * A streamed turn's request as the chat page sends it: the message in a JSON body.
	 */
	static HttpRequest streamRequest(int port, String conversation, String message) {
		String body = JSON.writeValueAsString(Map.of("conversationId", conversation, "message", message));
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/chat/stream"))
			.header("Accept", "text/event-stream")
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.timeout(Duration.ofSeconds(20))
			.build();
	}

	/**
	 * Read a turn's server-sent events as {@code name data} lines, as a browser with
	 * these cookies.
	 */
	static List<String> stream(int port, CookieManager cookies, String conversation, String message) throws Exception {
		HttpClient client = HttpClient.newBuilder()
			.connectTimeout(Duration.ofSeconds(5))
			.cookieHandler(cookies)
			.build();
		HttpResponse<InputStream> response = client.send(streamRequest(port, conversation, message),
				HttpResponse.BodyHandlers.ofInputStream());
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("text/event-stream"));
		List<String> events = new ArrayList<>();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
			String name = null;
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				if (line.startsWith("event:")) {
					name = line.substring(6);
				}
				else if (line.startsWith("data:")) {
					events.add(name + " " + line.substring(5));
				}
			}
		}
		return events;
	}

}
