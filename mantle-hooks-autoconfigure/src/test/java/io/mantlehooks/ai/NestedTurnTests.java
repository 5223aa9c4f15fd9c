package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.advisor.RetrievalAugmentationAdvisor;
import org.springframework.ai.rag.preretrieval.query.transformation.RewriteQueryTransformer;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code ChatClient} call made inside a running turn (a sub-agent in a tool, a RAG
 * query transformer) is part of that turn: it keeps the turn's identity and runs the
 * model and tool hooks, but no incoming-message, turn or outgoing-text hooks of its own,
 * and it is never reported as unhooked.
 */
@ExtendWith(OutputCaptureExtension.class)
class NestedTurnTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
		.withBean("scriptedHooks", ScriptedHooks.class)
		.withBean("recordingObservers", RecordingObservers.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void subAgentCallInsideAToolRunsTheModelHooksWithTheTurnsIdentityOnly() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "summarize", "{\"text\":\"long text\"}")),
				Reply.text("Short text."), Reply.text("Here is the summary: Short text."));
		this.contextRunner.run((context) -> {
			ChatClient chatClient = ChatTestSupport.chatClient(context);
			String reply = chatClient.prompt()
				.user("Summarize this")
				.tools(new SubAgentTools(chatClient))
				.advisors(MantleHooks.identity("user-42", Channel.of("web")))
				.call()
				.content();
			assertThat(reply).isEqualTo("Here is the summary: Short text.");
			ScriptedHooks hooks = ChatTurnTests.hooks(context);
			assertThat(hooks.calls).containsExactly("incoming-message", "model-request#1", "model-response",
					"model-request#1", "model-response", "model-request#2", "model-response",
					"outgoing-text:Here is the summary: Short text.");
			ModelRequestPayload nested = (ModelRequestPayload) hooks.payloads.get(3);
			assertThat(nested.messages().get(nested.messages().size() - 1).getText()).isEqualTo("long text");
			assertThat(hooks.payloads).allSatisfy((payload) -> {
				assertThat(((HookPayload) payload).senderId()).isEqualTo("user-42");
				assertThat(((HookPayload) payload).channel()).isEqualTo(Channel.of("web"));
			});
			RecordingObservers observers = ChatTurnTests.observers(context);
			// one turn, though the tool asked the model again
			observers.awaitTurns(1, Duration.ofSeconds(60));
			await().during(Duration.ofMillis(200))
				.atMost(Duration.ofSeconds(60))
				.until(() -> observers.of(TurnStartedPayload.class).size() == 1);
		});
	}

	@Test
	void handBuiltClientOfAQueryTransformerInsideATurnIsNotReported(CapturedOutput output) {
		this.openAi.reply(Reply.text("refund policy"), Reply.text("Refunds take 5 days."));
		this.contextRunner.withPropertyValues("mantle.hooks.unhooked-calls=fail").run((context) -> {
			ChatModel chatModel = context.getBean(ChatModel.class);
			DocumentRetriever retriever = (query) -> List
				.of(new Document("Refund policy: refunds take 5 days.", Map.of("source", "refunds.md")));
			RetrievalAugmentationAdvisor rag = RetrievalAugmentationAdvisor.builder()
				.queryTransformers(
						RewriteQueryTransformer.builder().chatClientBuilder(ChatClient.builder(chatModel)).build())
				.documentRetriever(retriever)
				.build();
			String reply = ChatTestSupport.chatClient(context)
				.prompt()
				.user("how long do refunds take?")
				.advisors(rag)
				.call()
				.content();
			assertThat(reply).isEqualTo("Refunds take 5 days.");
			assertThat(this.openAi.messages(1).get(0)).contains("refunds take 5 days");
		});
		assertThat(output).doesNotContain("was called outside a hooked turn");
	}

	static class SubAgentTools {

		private final ChatClient chatClient;

		SubAgentTools(ChatClient chatClient) {
			this.chatClient = chatClient;
		}

		@Tool(name = "summarize", description = "Summarize a text")
		String summarize(String text) {
			return this.chatClient.prompt().user(text).call().content();
		}

	}

}
