package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.mantlehooks.Channel;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.test.LoopbackOpenAiServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What tells the console's turns and rows apart, as its JSON shows it over HTTP, from
 * turns through the real OpenAI client against the loopback server: each turn's
 * conversation, its agent and, only with texts, the first words of its message; and the
 * attempts of a model call a model-response hook sent back ({@code RetryModel}).
 */
class ConsoleTurnListTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final String GUESS = "Can you guess when my parcel ships? My email is jane@example.com, "
			+ "order A-42, thanks a lot";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void eachTurnShowsItsConversationAndTheFirstWordsOfItsMessage() throws Exception {
		this.openAi.text("It ships on Monday.").text("Order A-42 is on its way.");
		try (ConfigurableApplicationContext app = start(true)) {
			String first = chat(app, "c-parcel", "When does my parcel ship?");
			String second = chat(app, "c-order", GUESS.replace("guess", "tell"));
			JsonNode list = list(app, first, second);

			JsonNode firstRow = row(list, first);
			assertThat(firstRow.get("conversationId").asString()).isEqualTo("c-parcel");
			assertThat(firstRow.get("messagePreview").asString()).isEqualTo("When does my parcel ship?");
			JsonNode secondRow = row(list, second);
			assertThat(secondRow.get("conversationId").asString()).isEqualTo("c-order");
			// the first words, cut at a word
			assertThat(secondRow.get("messagePreview").asString())
				.isEqualTo("Can you tell when my parcel ships? My email is…");
		}
	}

	@Test
	void eachTurnShowsTheAgentOfItsChatClient() throws Exception {
		this.openAi.text("It ships on Monday.").text("Your invoice is on its way.").text("Order A-42 shipped.");
		try (ConfigurableApplicationContext app = start(false)) {
			ChatClient billing = app.getBean(ChatClient.Builder.class)
				.defaultAdvisors(MantleHooks.agent("billing"))
				.build();
			String shop = chat(app, "c-parcel", "When does my parcel ship?");
			String invoice = chat(billing, "c-invoice", "Send me my invoice");
			String other = chat(app, "c-order", "Where is order A-42?");
			JsonNode list = list(app, shop, invoice, other);

			assertThat(row(list, shop).get("agent").asString()).isEqualTo(MantleHooks.DEFAULT_AGENT);
			assertThat(row(list, invoice).get("agent").asString()).isEqualTo("billing");
			assertThat(row(list, other).get("agent").asString()).isEqualTo(MantleHooks.DEFAULT_AGENT);
			assertThat(detail(app, invoice).get("agent").asString()).isEqualTo("billing");
			assertThat(detail(app, shop).get("agent").asString()).isEqualTo(MantleHooks.DEFAULT_AGENT);
			// the billing turn's rows are the billing agent's hooks (observers run off
			// the
			// critical path: the row may come after the turn ended)
			TurnConsole console = app.getBean(TurnConsole.class);
			await().atMost(WAIT)
				.until(() -> console.turn(invoice)
					.orElseThrow()
					.turn()
					.hooks()
					.stream()
					.anyMatch((hook) -> hook.hook().equals("billingAudit.seen")));
			assertThat(detail(app, invoice).get("hooks")).extracting((hook) -> hook.get("hook").asString())
				.contains("billingAudit.seen");
			// and each row says which agent its hook ran for, in the detail and the list
			assertThat(detail(app, invoice).get("hooks")).isNotEmpty()
				.allSatisfy((hook) -> assertThat(hook.get("agent").asString()).isEqualTo("billing"));
			assertThat(row(list(app, invoice), invoice).get("hooks")).isNotEmpty()
				.allSatisfy((hook) -> assertThat(hook.get("agent").asString()).isEqualTo("billing"));
			assertThat(detail(app, shop).get("hooks")).isNotEmpty()
				.allSatisfy((hook) -> assertThat(hook.get("agent").asString()).isEqualTo(MantleHooks.DEFAULT_AGENT));
		}
	}

	@Test
	void theListNamesEveryAgentHooksAreConfiguredForBeforeAnyOfItsTurns() throws Exception {
		try (ConfigurableApplicationContext app = start(false)) {
			String port = app.getEnvironment().getProperty("local.server.port");
			JsonNode list = JSON.readTree(ConsoleServer.get(port, "/actuator/mantlehooks/turns").body());
			assertThat(list.get("turns")).isEmpty();
			// billing names itself in @ForAgent; default runs the hooks of every agent
			assertThat(list.get("agents")).extracting(JsonNode::asString)
				.containsExactly("billing", MantleHooks.DEFAULT_AGENT);
		}
	}

	@Test
	void withoutTextsTheListShowsTheConversationButNoWordOfTheMessage() throws Exception {
		this.openAi.text("It ships on Monday.");
		try (ConfigurableApplicationContext app = start(false)) {
			String turnId = chat(app, "c-42", "When does my parcel ship?");
			JsonNode list = list(app, turnId);
			JsonNode row = row(list, turnId);
			assertThat(row.get("conversationId").asString()).isEqualTo("c-42");
			assertThat(row.get("messagePreview").isNull()).isTrue();
			String port = app.getEnvironment().getProperty("local.server.port");
			for (String path : List.of("/actuator/mantlehooks/turns", "/actuator/mantlehooks/turns/" + turnId)) {
				assertThat(ConsoleServer.get(port, path).body()).as(path).doesNotContain("parcel", "ship", "Monday");
			}
		}
	}

	@Test
	void theAttemptsOfARetriedModelCallAreLabelled() throws Exception {
		this.openAi.text("I guess it ships tomorrow.").text("It ships on Monday.");
		try (ConfigurableApplicationContext app = start(true)) {
			String turnId = chat(app, "c-guess", GUESS);
			JsonNode turn = detail(app, turnId);

			List<String> modelRows = new ArrayList<>();
			for (JsonNode hook : turn.get("hooks")) {
				String point = hook.get("point").asString();
				if (point.startsWith("model-")) {
					modelRows.add(point + " " + hook.get("hook").asString() + " " + hook.get("outcome").asString()
							+ " attempt " + hook.get("attempt").asInt());
				}
			}
			assertThat(modelRows).containsExactly("model-request grounding.redact proceeded attempt 1",
					"model-response grounding.rejectGuesses retried attempt 1",
					"model-request grounding.redact proceeded attempt 2",
					"model-response grounding.rejectGuesses proceeded attempt 2");
			// the redaction changed both attempts' requests: each diff says which attempt
			for (JsonNode hook : turn.get("hooks")) {
				if (hook.get("point").asString().equals("model-request")) {
					assertThat(hook.get("before").asString()).contains("jane@example.com");
					assertThat(hook.get("after").asString()).contains("[email]").doesNotContain("jane");
				}
			}
			// the model was called twice: the second time with the hook's note
			assertThat(this.openAi.requests()).hasSize(2);
			assertThat(this.openAi.requestBody(1)).contains("Answer only from the documents.");
		}
	}

	@Test
	void aTurnWithoutRetriesHasNoAttempts() throws Exception {
		this.openAi.text("It ships on Monday.");
		try (ConfigurableApplicationContext app = start(true)) {
			String turnId = chat(app, "c-parcel", "When does my parcel ship?");
			JsonNode turn = detail(app, turnId);
			assertThat(turn.get("hooks")).isNotEmpty().allSatisfy((hook) -> assertThat(hook.has("attempt")).isFalse());
		}
	}

	private ConfigurableApplicationContext start(boolean includeText) {
		return ConsoleServer.application(GroundedApplication.class)
			.properties(this.openAi.springProperties())
			.properties("spring.ai.model.chat=openai", "mantle.hooks.console.include-text=" + includeText,
					"mantle.hooks.timeouts.modify=60s", "mantle.hooks.timeouts.observe=60s")
			.run();
	}

	private static String chat(ConfigurableApplicationContext app, String conversationId, String message) {
		return chat(app.getBean(ChatClient.Builder.class).build(), conversationId, message);
	}

	private static String chat(ChatClient client, String conversationId, String message) {
		return (String) client.prompt()
			.user(message)
			.advisors(MantleHooks.identity("u-1", Channel.of("web")))
			.advisors((advisors) -> advisors.param(ChatMemory.CONVERSATION_ID, conversationId))
			.call()
			.chatClientResponse()
			.context()
			.get(MantleHooks.TURN_ID);
	}

	/** The list as the endpoint shows it, once the turns have finished. */
	private static JsonNode list(ConfigurableApplicationContext app, String... turnIds) throws Exception {
		for (String turnId : turnIds) {
			detail(app, turnId);
		}
		String port = app.getEnvironment().getProperty("local.server.port");
		return JSON.readTree(ConsoleServer.get(port, "/actuator/mantlehooks/turns").body()).get("turns");
	}

	private static JsonNode row(JsonNode list, String turnId) {
		for (JsonNode row : list) {
			if (row.get("id").asString().equals(turnId)) {
				return row;
			}
		}
		throw new AssertionError("no row of turn " + turnId + " in " + list);
	}

	/** The turn as the endpoint shows it, once it has finished. */
	private static JsonNode detail(ConfigurableApplicationContext app, String turnId) throws Exception {
		TurnConsole console = app.getBean(TurnConsole.class);
		await().atMost(WAIT)
			.until(() -> console.turn(turnId)
				.map((detail) -> !detail.turn().outcome().equals("running"))
				.orElse(false));
		String port = app.getEnvironment().getProperty("local.server.port");
		return JSON.readTree(ConsoleServer.get(port, "/actuator/mantlehooks/turns/" + turnId).body()).get("turn");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class GroundedApplication {

		@Bean
		Grounding grounding() {
			return new Grounding();
		}

		@Bean
		BillingAudit billingAudit() {
			return new BillingAudit();
		}

	}

	/** An observer of the billing agent's messages only. */
	@ForAgent("billing")
	static class BillingAudit {

		@OnIncomingMessage
		void seen(IncomingMessagePayload message) {
			// its row in the console is what the test looks for
		}

	}

	/** Redacts emails in what the model is sent, and sends a guessed answer back. */
	static class Grounding {

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			List<Message> messages = request.messages()
				.stream()
				.map((message) -> (message instanceof UserMessage user)
						? (Message) user.mutate().text(user.getText().replace("jane@example.com", "[email]")).build()
						: message)
				.toList();
			return request.withMessages(messages);
		}

		@ModifyModelResponse
		ModelResponsePayload rejectGuesses(ModelResponsePayload response) {
			if (response.text() != null && response.text().contains("guess")) {
				throw new RetryModel("Answer only from the documents.");
			}
			return response;
		}

	}

}
