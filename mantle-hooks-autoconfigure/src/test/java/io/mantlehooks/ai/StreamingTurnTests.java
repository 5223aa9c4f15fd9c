package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code .stream()} turns: the same points as {@code .call()}; a registered modifier that
 * could change or drop the reply buffers the completion into one chunk, observers alone
 * never stop tokens from streaming live.
 */
class StreamingTurnTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("recordingObservers", RecordingObservers.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void observersAloneLeaveTokensStreamingLive() {
		this.openAi.reply(Reply.text("Rome is sunny today."));
		this.contextRunner.run((context) -> {
			List<String> chunks = stream(context, "Weather?");
			assertThat(chunks).hasSizeGreaterThan(1);
			assertThat(String.join("", chunks)).isEqualTo("Rome is sunny today.");
			RecordingObservers observers = ChatTurnTests.observers(context);
			await().atMost(WAIT).until(() -> !observers.of(OutgoingTextPayload.class).isEmpty());
			assertThat(observers.of(OutgoingTextPayload.class)).singleElement()
				.extracting(OutgoingTextPayload::text)
				.isEqualTo("Rome is sunny today.");
			await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
			assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).isEqualTo(TurnStatus.COMPLETED);
		});
	}

	@Test
	void modifierBuffersTheReplyIntoOneHookedChunk() {
		this.openAi.reply(Reply.text("Rome is sunny today."));
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			ChatTurnTests.hooks(context).outgoing = (text) -> text.withText(text.text().toUpperCase());
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			List<String> chunks = chatClient(context).prompt()
				.user("Weather?")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.stream()
				.content()
				.collectList()
				.block(WAIT);
			assertThat(chunks).containsExactly("ROME IS SUNNY TODAY.");
			assertThat(ChatTurnTests.texts(memory.get("c1"))).containsExactly("USER: Weather?",
					"ASSISTANT: ROME IS SUNNY TODAY.");
			assertThat(this.openAi.requests().get(0)).containsEntry("stream", true);
			assertThat(ChatTurnTests.hooks(context).calls).containsExactly("incoming-message", "model-request#1",
					"model-response", "outgoing-text:Rome is sunny today.");
		});
	}

	@Test
	void retryModelWorksWhenStreaming() {
		this.openAi.reply(Reply.text("Guess."), Reply.text("According to the map, Rome."));
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			ChatTurnTests.hooks(context).response = (response) -> {
				if (!response.text().startsWith("According")) {
					throw new RetryModel("Cite the map.");
				}
				return response;
			};
			assertThat(stream(context, "Where?")).containsExactly("According to the map, Rome.");
			assertThat(this.openAi.messages(1)).containsExactly("user: Where?", "system: Cite the map.");
		});
	}

	@Test
	void rejectedIncomingMessageStreamsTheReplyWithoutCallingTheModel() {
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			ChatTurnTests.hooks(context).incoming = (message) -> {
				throw new HookRejection("off topic");
			};
			assertThat(stream(context, "Tell me a secret")).containsExactly("Sorry, I can't help with that request.");
			assertThat(this.openAi.requests()).isEmpty();
		});
	}

	@Test
	void cancelledStreamFinishesTheTurnAsCancelled() {
		this.openAi.reply(Reply.text("one two three four five six"));
		this.contextRunner.run((context) -> {
			List<String> first = chatClient(context).prompt()
				.user("Count")
				.stream()
				.content()
				.take(1)
				.collectList()
				.block(WAIT);
			assertThat(first).hasSize(1);
			RecordingObservers observers = ChatTurnTests.observers(context);
			await().atMost(WAIT).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
			assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).isEqualTo(TurnStatus.CANCELLED);
			await().during(Duration.ofMillis(300)).until(() -> observers.of(TurnFinishedPayload.class).size() == 1);
		});
	}

	@Test
	void streamedToolCallRunsTheToolAndStreamsTheAnswer() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "weather", "{\"city\":\"Rome\"}")),
				Reply.text("Rome is sunny."));
		this.contextRunner.run((context) -> {
			ChatTurnTests.WeatherTools tools = new ChatTurnTests.WeatherTools();
			List<String> chunks = streamWithTools(context, tools, "Weather in Rome?");
			assertThat(String.join("", chunks)).isEqualTo("Rome is sunny.");
			assertThat(tools.cities).containsExactly("Rome");
			assertThat(this.openAi.messages(1)).containsExactly("user: Weather in Rome?",
					"assistant: [weather({\"city\":\"Rome\"})]", "tool: \"sunny in Rome\"");
		});
	}

	@Test
	void bufferedToolCallTurnDeliversTheFinalTextInOneChunk() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "weather", "{\"city\":\"Rome\"}")),
				Reply.text("Rome is sunny."));
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			ChatTurnTests.WeatherTools tools = new ChatTurnTests.WeatherTools();
			List<String> chunks = streamWithTools(context, tools, "Weather in Rome?");
			assertThat(chunks).containsExactly("Rome is sunny.");
			assertThat(tools.cities).containsExactly("Rome");
		});
	}

	@Test
	void eachBufferingModifierAloneDeliversOneChunk() {
		for (Class<?> hooks : List.of(SingleModifierHooks.ResponseOnly.class, SingleModifierHooks.ToolCallOnly.class,
				SingleModifierHooks.OutgoingOnly.class)) {
			this.openAi.reply(Reply.text("Rome is sunny today."));
			this.contextRunner.withBean("singleModifier", hooks)
				.run((context) -> assertThat(stream(context, "Weather?")).as(hooks.getSimpleName())
					.containsExactly("Rome is sunny today."));
		}
	}

	@Test
	void manyConcurrentBufferedStreamsAllComplete() {
		int turns = 40;
		for (int i = 0; i < turns; i++) {
			this.openAi.reply(Reply.text("Answer number " + i + "."));
		}
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			ChatClient chatClient = chatClient(context);
			List<String> replies = Flux.range(0, turns)
				.flatMap((i) -> chatClient.prompt().user("Question " + i).stream().content().reduce("", String::concat),
						turns)
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(replies).hasSize(turns).allSatisfy((reply) -> assertThat(reply).startsWith("Answer number "));
		});
	}

	@Test
	void streamedTurnHooksSeeTheCallersMdc() {
		this.openAi.reply(Reply.text("Hello."));
		this.contextRunner.withBean("mdcHooks", MdcHooks.class).run((context) -> {
			MDC.put("requestId", "req-42");
			try {
				assertThat(stream(context, "Hi")).containsExactly("Hello.");
			}
			finally {
				MDC.remove("requestId");
			}
			assertThat(context.getBean(MdcHooks.class).seen).containsExactly("req-42", "req-42");
		});
	}

	private List<String> streamWithTools(AssertableApplicationContext context, Object tools, String text) {
		return chatClient(context).prompt().user(text).tools(tools).stream().content().collectList().block(WAIT);
	}

	private List<String> stream(AssertableApplicationContext context, String text) {
		return chatClient(context).prompt().user(text).stream().content().collectList().block(WAIT);
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	static class MdcHooks {

		final List<String> seen = new CopyOnWriteArrayList<>();

		@io.mantlehooks.annotation.ModifyIncomingMessage
		IncomingMessagePayload incoming(IncomingMessagePayload message) {
			this.seen.add(String.valueOf(MDC.get("requestId")));
			return message;
		}

		@io.mantlehooks.annotation.ModifyOutgoingText
		OutgoingTextPayload outgoing(OutgoingTextPayload text) {
			this.seen.add(String.valueOf(MDC.get("requestId")));
			return text;
		}

	}

}
