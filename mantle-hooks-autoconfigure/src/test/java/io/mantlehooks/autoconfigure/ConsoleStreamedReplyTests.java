package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.mantlehooks.Channel;
import io.mantlehooks.HookRejection;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.test.LoopbackOpenAiServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * A reply streamed through the real OpenAI client (server-sent events from the loopback
 * server) with a {@code StreamMode.SENTENCES} outgoing-text hook, as the console's JSON
 * shows it over HTTP: one outgoing-text row with the reply's segment invocations, and,
 * when a segment is rejected, what the rejection retracted (only with texts).
 */
class ConsoleStreamedReplyTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final String REPLY = "Refunded 30 EUR for order A-42. It arrives in 3 days. "
			+ "Thank you for waiting. Anything else?";

	private static final String VETOED = "Refunded 30 EUR for order A-42. It arrives in 3 days. "
			+ "Buy crypto now! Anything else?";

	private static final String ORDERS_ONLY = "Sorry, I can only help with your orders.";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void aStreamedReplysSegmentsAreOneRowWithTheirTexts() throws Exception {
		this.openAi.text(REPLY);
		try (ConfigurableApplicationContext app = start(true)) {
			List<ChatClientResponse> chunks = stream(app);

			JsonNode row = outgoingRow(app, turnId(chunks));
			assertThat(row.get("hook").asString()).isEqualTo("houseStyle.amounts");
			assertThat(row.get("lane").asString()).isEqualTo("modify");
			assertThat(row.get("outcome").asString()).isEqualTo("proceeded");
			JsonNode segments = row.get("segments");
			assertThat(segments.get("count").asInt()).isEqualTo(4);
			assertThat(segments.get("rejectedSegment").isNull()).isTrue();
			assertThat(segments.get("retracted").isNull()).isTrue();
			assertThat(values(segments.get("invocations"), "segment")).containsExactly("0", "1", "2", "3");
			assertThat(values(segments.get("invocations"), "finalSegment")).containsExactly("false", "false", "false",
					"true");
			assertThat(values(segments.get("invocations"), "before")).containsExactly(
					"Refunded 30 EUR for order A-42. ", "It arrives in 3 days. ", "Thank you for waiting. ",
					"Anything else?");
			assertThat(segments.get("invocations").get(0).get("after").asString())
				.isEqualTo("Refunded €30.00 for order A-42. ");
			double total = 0;
			for (JsonNode invocation : segments.get("invocations")) {
				total += invocation.get("durationMs").asDouble();
			}
			assertThat(row.get("durationMs").asDouble()).isCloseTo(total, within(0.02));
			// the rewritten sentences reached the user as they completed
			assertThat(text(chunks)).isEqualTo(REPLY.replace("30 EUR", "€30.00"));
		}
	}

	@Test
	void aRejectedSegmentShowsWhatWasRetracted() throws Exception {
		this.openAi.text(VETOED);
		try (ConfigurableApplicationContext app = start(true)) {
			List<ChatClientResponse> chunks = stream(app);
			ChatClientResponse last = chunks.get(chunks.size() - 1);
			assertThat(last.context()).containsEntry(MantleHooks.RETRACTED, true)
				.containsEntry(MantleHooks.OUTCOME, "rejected");
			assertThat(text(List.of(last))).isEqualTo(ORDERS_ONLY);

			String turnId = turnId(chunks);
			JsonNode row = outgoingRow(app, turnId);
			assertThat(row.get("outcome").asString()).isEqualTo("rejected");
			JsonNode segments = row.get("segments");
			assertThat(segments.get("count").asInt()).isEqualTo(3);
			assertThat(segments.get("rejectedSegment").asInt()).isEqualTo(2);
			assertThat(values(segments.get("invocations"), "outcome")).containsExactly("proceeded", "proceeded",
					"rejected");
			// what the user had been shown before the rejection's reply replaced it
			assertThat(segments.get("retracted").asString())
				.isEqualTo("Refunded €30.00 for order A-42. It arrives in 3 days. ");
			assertThat(turn(app, turnId).get("outcome").asString()).isEqualTo("rejected");
		}
	}

	@Test
	void withoutTextsTheRowShowsTheRejectionButNoText() throws Exception {
		this.openAi.text(VETOED);
		try (ConfigurableApplicationContext app = start(false)) {
			List<ChatClientResponse> chunks = stream(app);
			String turnId = turnId(chunks);
			JsonNode row = outgoingRow(app, turnId);
			assertThat(row.get("outcome").asString()).isEqualTo("rejected");
			assertThat(row.get("segments").get("count").asInt()).isEqualTo(3);
			assertThat(row.get("segments").get("rejectedSegment").asInt()).isEqualTo(2);
			assertThat(row.get("segments").get("retracted").isNull()).isTrue();
			String port = app.getEnvironment().getProperty("local.server.port");
			for (String path : List.of("/actuator/mantlehooks/turns/" + turnId, "/actuator/mantlehooks/turns")) {
				assertThat(ConsoleServer.get(port, path).body()).as(path)
					.doesNotContain("Refunded", "arrives", "crypto", "A-42");
			}
		}
	}

	private ConfigurableApplicationContext start(boolean includeText) {
		return ConsoleServer.application(StreamedApplication.class)
			.properties(this.openAi.springProperties())
			.properties("spring.ai.model.chat=openai", "mantle.hooks.console.include-text=" + includeText,
					"mantle.hooks.timeouts.modify=60s", "mantle.hooks.timeouts.observe=60s",
					"mantle.hooks.responses.utter_orders_only=" + ORDERS_ONLY)
			.run();
	}

	private static List<ChatClientResponse> stream(ConfigurableApplicationContext app) {
		return app.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("Where is my refund?")
			.advisors(MantleHooks.identity("u-1", Channel.of("web")))
			.stream()
			.chatClientResponse()
			.collectList()
			.block(WAIT);
	}

	private static String text(List<ChatClientResponse> chunks) {
		StringBuilder text = new StringBuilder();
		for (ChatClientResponse chunk : chunks) {
			if (chunk.chatResponse() != null && chunk.chatResponse().getResult() != null
					&& chunk.chatResponse().getResult().getOutput().getText() != null) {
				text.append(chunk.chatResponse().getResult().getOutput().getText());
			}
		}
		return text.toString();
	}

	private static String turnId(List<ChatClientResponse> chunks) {
		return chunks.stream()
			.map((chunk) -> chunk.context().get(MantleHooks.TURN_ID))
			.filter(Objects::nonNull)
			.map(Object::toString)
			.findFirst()
			.orElseThrow();
	}

	/** The turn as the endpoint shows it, once it has finished. */
	private static JsonNode turn(ConfigurableApplicationContext app, String turnId) throws Exception {
		TurnConsole console = app.getBean(TurnConsole.class);
		await().atMost(WAIT)
			.until(() -> console.turn(turnId)
				.map((detail) -> !detail.turn().outcome().equals("running"))
				.orElse(false));
		String port = app.getEnvironment().getProperty("local.server.port");
		return JSON.readTree(ConsoleServer.get(port, "/actuator/mantlehooks/turns/" + turnId).body()).get("turn");
	}

	/** The reply's outgoing-text modify row, the first one. */
	private static JsonNode outgoingRow(ConfigurableApplicationContext app, String turnId) throws Exception {
		for (JsonNode hook : turn(app, turnId).get("hooks")) {
			if (hook.get("point").asString().equals("outgoing-text") && hook.get("lane").asString().equals("modify")) {
				assertThat(hook.has("segments")).as("a row of segments: %s", hook).isTrue();
				return hook;
			}
		}
		throw new AssertionError("no outgoing-text modify row in turn " + turnId);
	}

	private static List<String> values(JsonNode invocations, String field) {
		List<String> values = new ArrayList<>();
		invocations.forEach((invocation) -> values.add(invocation.get(field).asString()));
		return values;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class StreamedApplication {

		@Bean
		HouseStyle houseStyle() {
			return new HouseStyle();
		}

	}

	/** Writes amounts in house style, sentence by sentence, and vetoes sales pitches. */
	static class HouseStyle {

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		OutgoingTextPayload amounts(OutgoingTextPayload outgoing) {
			if (outgoing.text().contains("crypto")) {
				throw new HookRejection("sales pitch", "utter_orders_only");
			}
			return outgoing.withText(outgoing.text().replace("30 EUR", "€30.00"));
		}

	}

}
