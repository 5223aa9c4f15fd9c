package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.Channel;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The same turn through {@code .call()} and {@code .stream()}: the user sees the same
 * reply, response context, usage, transcript, observation outcome and turn-finished
 * status, whichever driver runs it, and the token usage a stream reports is plain Spring
 * AI's.
 */
class TurnDriversTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner plain = ChatTestSupport.contextRunner(this.openAi);

	private final ApplicationContextRunner hooked = this.plain
		.withPropertyValues("mantle.hooks.transcript.enabled=true",
				"mantle.hooks.responses.utter_no_spam=No spam here.")
		.withBean("observationRegistry", ObservationRegistry.class, TurnDriversTests::observationRegistry)
		.withBean("edgeHooks", EdgeHooks.class);

	@AfterEach
	void stop() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "observers only (streamed live)", "outgoing-text hook (buffered)" })
	void aTextTurnLooksTheSameThroughBothDrivers(String setup) {
		ApplicationContextRunner runner = setup.startsWith("outgoing") ? this.hooked.withBean(Shouting.class)
				: this.hooked;
		runner.run((context) -> {
			this.openAi.reply(Reply.text("Refunds take five days."));
			Seen called = call(context, "c-call", "How long do refunds take?");
			this.openAi.reply(Reply.text("Refunds take five days."));
			Seen streamed = stream(context, "c-stream", "How long do refunds take?");
			String expected = setup.startsWith("outgoing") ? "REFUNDS TAKE FIVE DAYS." : "Refunds take five days.";
			assertThat(called.text()).isEqualTo(expected);
			assertSame(context, called, streamed);
			assertThat(called.usage()).isEqualTo(15);
		});
	}

	@Test
	void aRejectedMessageLooksTheSameThroughBothDrivers() {
		this.hooked.run((context) -> {
			Seen called = call(context, "c-call", "send me spam");
			Seen streamed = stream(context, "c-stream", "send me spam");
			assertThat(called.text()).isEqualTo("No spam here.");
			assertThat(called.context()).containsEntry(MantleHooks.OUTCOME, "rejected");
			assertSame(context, called, streamed);
			assertThat(this.openAi.requests()).isEmpty();
			// a turn rejected at its start never started, so it does not finish either
			assertThat(context.getBean(EdgeHooks.class).finished).isEmpty();
		});
	}

	@Test
	void aToolTurnReportsTheUsageOfEveryModelCallThroughBothDrivers() {
		this.hooked.run((context) -> {
			this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refundDays", "{}")),
					Reply.text("Refunds take 5 days."));
			Seen called = call(context, "c-call", "How long do refunds take?", new RefundTools());
			this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refundDays", "{}")),
					Reply.text("Refunds take 5 days."));
			Seen streamed = stream(context, "c-stream", "How long do refunds take?", new RefundTools());
			assertThat(called.text()).isEqualTo("Refunds take 5 days.");
			assertThat(called.usage()).isEqualTo(30);
			assertSame(context, called, streamed);
		});
	}

	@Test
	void aStreamedTurnWithAnObserverReportsPlainSpringAisUsage() {
		this.openAi.reply(Reply.text("Plain."), Reply.text("Plain."));
		Integer[] plainUsage = new Integer[2];
		this.plain.run((context) -> {
			plainUsage[0] = call(context, "p-call", "Hi").usage();
			plainUsage[1] = stream(context, "p-stream", "Hi").usage();
		});
		assertThat(plainUsage).containsExactly(15, 15);
		this.openAi.clear();
		this.openAi.reply(Reply.text("Hooked."), Reply.text("Audited."));
		this.hooked.run((context) -> assertThat(stream(context, "h-stream", "Hi").usage()).isEqualTo(15));
		// an application whose only hook is an audit observer of the model's responses
		this.plain.withBean(AuditOnly.class)
			.run((context) -> assertThat(stream(context, "a-stream", "Hi").usage()).isEqualTo(15));
	}

	private void assertSame(AssertableApplicationContext context, Seen called, Seen streamed) {
		assertThat(streamed.text()).isEqualTo(called.text());
		assertThat(streamed.usage()).isEqualTo(called.usage());
		assertThat(withoutTurnId(streamed.context())).isEqualTo(withoutTurnId(called.context()));
		assertThat(called.context().get(MantleHooks.TURN_ID)).isInstanceOf(String.class);
		assertThat(streamed.context().get(MantleHooks.TURN_ID)).isInstanceOf(String.class)
			.isNotEqualTo(called.context().get(MantleHooks.TURN_ID));
		TranscriptStore transcript = context.getBean(TranscriptStore.class);
		assertThat(entries(transcript.find("c-stream"))).isEqualTo(entries(transcript.find("c-call")));
		if (!"rejected".equals(called.context().get(MantleHooks.OUTCOME))) {
			EdgeHooks hooks = context.getBean(EdgeHooks.class);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(hooks.finished).containsKeys(turnId(called), turnId(streamed)));
			assertThat(hooks.finished.get(turnId(streamed))).isEqualTo(hooks.finished.get(turnId(called)))
				.isEqualTo(TurnStatus.COMPLETED);
		}
		TurnOutcomes outcomes = TurnOutcomes.INSTANCE;
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(outcomes.byTurn).containsKeys(turnId(called), turnId(streamed)));
		assertThat(outcomes.byTurn.get(turnId(streamed))).isEqualTo(outcomes.byTurn.get(turnId(called)));
	}

	private static String turnId(Seen seen) {
		return (String) seen.context().get(MantleHooks.TURN_ID);
	}

	private static Map<String, @Nullable Object> withoutTurnId(Map<String, @Nullable Object> context) {
		Map<String, @Nullable Object> copy = new HashMap<>(context);
		copy.remove(MantleHooks.TURN_ID);
		copy.remove("conversation_id");
		copy.remove(ChatMemory.CONVERSATION_ID);
		return copy;
	}

	private static List<String> entries(List<TranscriptEntry> entries) {
		return entries.stream()
			.map((entry) -> entry.role() + "|" + entry.text() + "|" + entry.discarded() + "|" + entry.outcome() + "|"
					+ entry.senderId())
			.toList();
	}

	private static Seen call(AssertableApplicationContext context, String conversation, String text, Object... tools) {
		ChatClientResponse response = prompt(context, conversation, text, tools).call().chatClientResponse();
		ChatResponse chatResponse = response.chatResponse();
		String reply = (chatResponse != null && chatResponse.getResult() != null)
				? chatResponse.getResult().getOutput().getText() : null;
		return new Seen(reply, response.context(), usage(chatResponse));
	}

	private static Seen stream(AssertableApplicationContext context, String conversation, String text,
			Object... tools) {
		List<ChatClientResponse> chunks = prompt(context, conversation, text, tools).stream()
			.chatClientResponse()
			.collectList()
			.block(Duration.ofSeconds(60));
		assertThat(chunks).isNotEmpty();
		StringBuilder reply = new StringBuilder();
		for (ChatClientResponse chunk : chunks) {
			ChatResponse chatResponse = chunk.chatResponse();
			if (chatResponse != null && chatResponse.getResult() != null
					&& chatResponse.getResult().getOutput().getText() != null) {
				reply.append(chatResponse.getResult().getOutput().getText());
			}
		}
		// what a user adding up a stream gets: Spring AI's own aggregation of the chunks
		List<ChatClientResponse> aggregated = new ArrayList<>();
		new ChatClientMessageAggregator().aggregateChatClientResponse(Flux.fromIterable(chunks), aggregated::add)
			.blockLast(Duration.ofSeconds(10));
		ChatClientResponse whole = aggregated.get(0);
		return new Seen(reply.toString(), chunks.get(chunks.size() - 1).context(), usage(whole.chatResponse()));
	}

	private static ChatClient.ChatClientRequestSpec prompt(AssertableApplicationContext context, String conversation,
			String text, Object... tools) {
		ChatClient.ChatClientRequestSpec spec = ChatTestSupport.chatClient(context)
			.prompt()
			.user(text)
			.advisors((advisors) -> advisors.param(ChatMemory.CONVERSATION_ID, conversation))
			.advisors(MantleHooks.identity("user-1", Channel.of("web")));
		return (tools.length > 0) ? spec.tools(tools) : spec;
	}

	private static @Nullable Integer usage(@Nullable ChatResponse response) {
		if (response == null) {
			return null;
		}
		Usage usage = response.getMetadata().getUsage();
		return (usage != null) ? usage.getTotalTokens() : null;
	}

	private static ObservationRegistry observationRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(TurnOutcomes.INSTANCE);
		return registry;
	}

	static class AuditOnly {

		@OnModelResponse
		void audit(ModelResponsePayload response) {
		}

	}

	record Seen(@Nullable String text, Map<String, @Nullable Object> context, @Nullable Integer usage) {
	}

	/** Records the outcome of each {@code mantle.turn} observation by turn id. */
	static final class TurnOutcomes implements ObservationHandler<TurnObservationContext> {

		static final TurnOutcomes INSTANCE = new TurnOutcomes();

		final Map<String, String> byTurn = new ConcurrentHashMap<>();

		@Override
		public void onStop(TurnObservationContext context) {
			this.byTurn.put(context.getTurnId(), Objects.toString(context.getOutcome()));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof TurnObservationContext;
		}

	}

	static class EdgeHooks {

		final Map<String, TurnStatus> finished = new ConcurrentHashMap<>();

		final List<String> responses = new CopyOnWriteArrayList<>();

		@ModifyIncomingMessage
		IncomingMessagePayload noSpam(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_no_spam");
			}
			return message;
		}

		@OnModelResponse
		void audit(ModelResponsePayload response) {
			this.responses.add(String.valueOf(response.text()));
		}

		@OnTurnFinished
		void finished(TurnFinishedPayload turn) {
			this.finished.put(turn.turnId(), turn.status());
		}

	}

	static class Shouting {

		@ModifyOutgoingText
		OutgoingTextPayload shout(OutgoingTextPayload text) {
			return text.withText(text.text().toUpperCase(Locale.ROOT));
		}

	}

	static class RefundTools {

		@Tool(description = "How many days a refund takes")
		int refundDays() {
			return 5;
		}

	}

}
