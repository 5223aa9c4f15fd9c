package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.annotation.OnToolResult;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientAttributes;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Token usage of streamed turns with the real Spring AI OpenAI client, whose provider
 * sends usage in a last chunk without choices (stream usage on): a hooked stream reports
 * what plain Spring AI reports for the same exchange, whatever hooks it has. Billing and
 * metrics read it there.
 */
class StreamUsageOpenAiTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "tool turn", "text turn" })
	void anObserversOnlyStreamReportsTheUsagePlainSpringAiReports(String turn) {
		this.contextRunner.withBean("recordingObservers", RecordingObservers.class)
			.withBean("toolObservers", ToolObservers.class)
			.run((context) -> {
				ChatModel model = context.getBean(ChatModel.class);
				script(turn);
				Integer plain = lastTotalTokens(ChatClient.builder(model).build(), turn);
				script(turn);
				Integer hooked = lastTotalTokens(ChatTestSupport.chatClient(context), turn);
				assertThat(plain).as("plain Spring AI's usage").isNotNull();
				assertThat(hooked).as("usage with observers").isEqualTo(plain);
				List<String> observed = (turn.equals("tool turn")) ? List.of("call refund", "result refund")
						: List.of();
				await().atMost(WAIT)
					.untilAsserted(() -> assertThat(context.getBean(ToolObservers.class).seen)
						.containsExactlyInAnyOrderElementsOf(observed));
			});
	}

	/**
	 * A client that runs its tools itself (Spring AI's tool advisor not registered) gets
	 * the model's tool calls as the last chunk of the stream; the OpenAI client merges
	 * the usage-only last chunk into it. With observers only, the reply streams live, and
	 * that chunk must reach the caller as it does in plain Spring AI: with the calls and
	 * the usage.
	 */
	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "tool calls", "text and tool calls" })
	void anObserversOnlyStreamPassesOnTheToolCallsTheApplicationRunsWithTheirUsage(String reply) {
		this.contextRunner.withBean("recordingObservers", RecordingObservers.class)
			.withBean("toolObservers", ToolObservers.class)
			.run((context) -> {
				ChatModel model = context.getBean(ChatModel.class);
				scriptForTheApplication(reply);
				List<ChatResponse> plain = toolCallsForTheApplication(ChatClient.builder(model).build());
				scriptForTheApplication(reply);
				List<ChatResponse> hooked = toolCallsForTheApplication(ChatTestSupport.chatClient(context));
				// real OpenAI sends the usage chunk only when the request asks for it
				assertThat(this.openAi.requestBody(0)).contains("\"include_usage\":true");
				assertThat(this.openAi.requestBody(1)).contains("\"include_usage\":true");
				assertThat(lastTotalTokens(plain)).as("plain Spring AI's usage").isEqualTo(15);
				assertThat(lastTotalTokens(hooked)).as("usage with observers").isEqualTo(15);
				assertThat(toolCalls(hooked)).as("tool calls with observers")
					.isEqualTo(toolCalls(plain))
					.containsExactly("refund({\"order\":\"A1\"})");
				assertThat(text(hooked)).as("text with observers").isEqualTo(text(plain));
				context.getBean(RecordingObservers.class).awaitTurns(1, WAIT);
				assertThat(context.getBean(ToolObservers.class).seen).as("the application runs the tools").isEmpty();
			});
	}

	private void scriptForTheApplication(String reply) {
		ToolCall refund = new ToolCall("c1", "refund", "{\"order\":\"A1\"}");
		this.openAi.reply(
				reply.equals("tool calls") ? Reply.toolCalls(refund) : Reply.textAndToolCalls("Checking A1. ", refund));
	}

	/**
	 * A streamed turn whose tool calls the application runs: Spring AI's tool advisor is
	 * not registered.
	 */
	private static List<ChatResponse> toolCallsForTheApplication(ChatClient chatClient) {
		List<ChatResponse> chunks = chatClient.prompt()
			.user("Refund A1")
			.tools(new CountingRefundTools())
			.options(OpenAiChatOptions.builder().streamUsage(true))
			.advisors((advisors) -> advisors.param(ChatClientAttributes.TOOL_CALLING_ADVISOR_AUTO_REGISTER.getKey(),
					false))
			.stream()
			.chatResponse()
			.collectList()
			.block(WAIT);
		assertThat(chunks).isNotNull();
		return chunks;
	}

	private static @Nullable Integer lastTotalTokens(List<ChatResponse> chunks) {
		return chunks.stream()
			.map(ChatResponse::getMetadata)
			.map((metadata) -> metadata.getUsage())
			.filter(Objects::nonNull)
			.map(Usage::getTotalTokens)
			.filter((tokens) -> tokens != null && tokens > 0)
			.reduce((first, second) -> second)
			.orElse(null);
	}

	private static List<String> toolCalls(List<ChatResponse> chunks) {
		return chunks.stream()
			.flatMap((chunk) -> chunk.getResults().stream())
			.flatMap((generation) -> generation.getOutput().getToolCalls().stream())
			.map((call) -> call.name() + "(" + call.arguments() + ")")
			.toList();
	}

	private static String text(List<ChatResponse> chunks) {
		return chunks.stream()
			.flatMap((chunk) -> chunk.getResults().stream())
			.map((generation) -> Objects.requireNonNullElse(generation.getOutput().getText(), ""))
			.collect(Collectors.joining());
	}

	private void script(String turn) {
		if (turn.equals("tool turn")) {
			this.openAi.reply(Reply.toolCalls(new ToolCall("c1", "refund", "{\"order\":\"A1\"}")),
					Reply.text("Refunded A1."));
		}
		else {
			this.openAi.reply(Reply.text("Refunded A1."));
		}
	}

	/**
	 * The total tokens of the last chunk of the stream that reports usage at all.
	 */
	private static Integer lastTotalTokens(ChatClient chatClient, String turn) {
		ChatClient.ChatClientRequestSpec request = chatClient.prompt().user("Refund A1");
		if (turn.equals("tool turn")) {
			request = request.tools(new CountingRefundTools());
		}
		List<ChatClientResponse> chunks = request.stream().chatClientResponse().collectList().block(WAIT);
		assertThat(chunks).isNotEmpty();
		return chunks.stream()
			.map(ChatClientResponse::chatResponse)
			.filter(Objects::nonNull)
			.map(ChatResponse::getMetadata)
			.map((metadata) -> metadata.getUsage())
			.filter(Objects::nonNull)
			.map(Usage::getTotalTokens)
			.filter((tokens) -> tokens != null && tokens > 0)
			.reduce((first, second) -> second)
			.orElse(null);
	}

	/**
	 * Observers of the tool points, which put the turn's tool rounds in the starter's
	 * loop.
	 */
	static class ToolObservers {

		final List<String> seen = new CopyOnWriteArrayList<>();

		@OnToolCall
		void call(ToolCallPayload call) {
			this.seen.add("call " + call.toolName());
		}

		@OnToolResult
		void result(ToolResultPayload result) {
			this.seen.add("result " + result.toolName());
		}

	}

}
