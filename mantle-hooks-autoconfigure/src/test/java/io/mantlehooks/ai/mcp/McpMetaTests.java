package io.mantlehooks.ai.mcp;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.test.LoopbackOpenAiServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.SyncMcpToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tool-call hook metadata against a real MCP server on loopback: it arrives as
 * {@code _meta} on that one call, merged over the configured meta, and nowhere else (not
 * in the arguments, the next model request, memory, observers or logs).
 */
@ExtendWith(OutputCaptureExtension.class)
class McpMetaTests {

	private static final String SECRET_REF = "upload-7f3a9c";

	private static final String REFUSED_DOCUMENT = "D-9";

	private static final String NOT_YOURS = "Document D-9 belongs to another customer";

	private static LoopbackOpenAiServer openAi;

	private static ConfigurableApplicationContext server;

	private static ConfigurableApplicationContext client;

	@BeforeAll
	static void start() {
		openAi = new LoopbackOpenAiServer();
		server = new SpringApplicationBuilder(DocumentServer.class)
			.properties("server.port=0", "server.address=127.0.0.1", "server.shutdown=immediate",
					"spring.ai.mcp.server.protocol=STREAMABLE", "spring.ai.mcp.client.enabled=false",
					"spring.ai.model.chat=none", "spring.ai.model.embedding=none", "spring.ai.model.image=none",
					"spring.ai.model.audio.speech=none", "spring.ai.model.audio.transcription=none",
					"spring.ai.model.moderation=none", "mantle.hooks.enabled=false")
			.run();
		String port = server.getEnvironment().getProperty("local.server.port");
		client = new SpringApplicationBuilder(ChatApp.class).web(WebApplicationType.NONE)
			.properties(clientProperties(port))
			.properties("logging.level.io.mantlehooks=TRACE")
			.run();
	}

	/**
	 * A chat application with the real OpenAI client and an MCP client of the document
	 * server.
	 */
	private static String[] clientProperties(String port) {
		return new String[] { "spring.ai.mcp.server.enabled=false", "spring.ai.openai.base-url=" + openAi.baseUrl(),
				"spring.ai.openai.api-key=test-key", "spring.ai.openai.chat.model=fake-model",
				"spring.ai.openai.max-retries=0", "spring.ai.model.embedding=none", "spring.ai.model.image=none",
				"spring.ai.model.audio.speech=none", "spring.ai.model.audio.transcription=none",
				"spring.ai.model.moderation=none",
				"spring.ai.mcp.client.streamable-http.connections.documents.url=http://127.0.0.1:" + port };
	}

	@AfterAll
	static void stop() {
		client.close();
		server.close();
		openAi.close();
	}

	@AfterEach
	void reset() {
		openAi.clear();
		server.getBean(DocumentServer.DocumentTool.class).metas.clear();
		server.getBean(DocumentServer.DocumentTool.class).documentIds.clear();
		client.getBean(MetaHooks.class).observed.clear();
	}

	@Test
	void hookMetadataArrivesAsMetaOnThatCallOnly(CapturedOutput output) {
		openAi.toolCall("call_1", "get_document", "{\"documentId\":\"D-1\"}");
		openAi.text("Here is your document.");
		ChatMemory memory = MessageWindowChatMemory.builder().build();
		String reply = chatClient().prompt()
			.user("Show my upload")
			.tools(client.getBean(SyncMcpToolCallbackProvider.class))
			.toolContext(Map.of("tenant", "acme", "document_ref", "configured-value"))
			.advisors(MessageChatMemoryAdvisor.builder(memory).build())
			.advisors((spec) -> spec.param(ChatMemory.CONVERSATION_ID, "c1"))
			.call()
			.content();
		assertThat(reply).isEqualTo("Here is your document.");
		DocumentServer.DocumentTool tool = server.getBean(DocumentServer.DocumentTool.class);
		assertThat(tool.metas).singleElement()
			.satisfies((meta) -> assertThat(meta).containsEntry("document_ref", SECRET_REF)
				.containsEntry("tenant", "acme")
				.doesNotContainKey("mantle.mcp_meta"));
		assertThat(tool.documentIds).containsExactly("D-1");
		assertThat(openAi.requestBody(1)).doesNotContain(SECRET_REF);
		assertThat(memory.get("c1").toString()).doesNotContain(SECRET_REF);
		List<ToolCallPayload> observed = client.getBean(MetaHooks.class).observed;
		await().atMost(Duration.ofSeconds(60)).until(() -> observed.size() == 1);
		assertThat(observed).singleElement().satisfies((call) -> assertThat(call.metadata()).isEmpty());
		// logs name the keys only
		assertThat(output).contains("document_ref").doesNotContain(SECRET_REF);
	}

	@Test
	void anApprovedCallReplaysItsStoredMetadataAsMeta() {
		String port = server.getEnvironment().getProperty("local.server.port");
		try (ConfigurableApplicationContext approving = new SpringApplicationBuilder(ChatApp.class)
			.web(WebApplicationType.NONE)
			.properties(clientProperties(port))
			.properties("mantle.hooks.approvals.tools=get_document")
			.run()) {
			openAi.toolCall("call_1", "get_document", "{\"documentId\":\"D-7\"}");
			openAi.text("Here it is.");
			ChatClient chatClient = approving.getBean(ChatClient.Builder.class).build();
			SyncMcpToolCallbackProvider tools = approving.getBean(SyncMcpToolCallbackProvider.class);
			ChatClientResponse paused = chatClient.prompt()
				.user("Show D-7")
				.tools(tools)
				.advisors((spec) -> spec.param(ChatMemory.CONVERSATION_ID, "c-meta"))
				.call()
				.chatClientResponse();
			String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);
			DocumentServer.DocumentTool tool = server.getBean(DocumentServer.DocumentTool.class);
			assertThat(tool.documentIds).isEmpty();
			List<ToolCallPayload> observed = approving.getBean(MetaHooks.class).observed;
			// the paused turn's preflight observer runs off the critical path
			await().atMost(Duration.ofSeconds(60)).until(() -> observed.size() == 1);
			observed.clear();
			String answer = chatClient.prompt()
				.user("Yes")
				.tools(tools)
				.advisors((spec) -> spec.param(ChatMemory.CONVERSATION_ID, "c-meta"))
				.advisors(MantleHooks.approve(approvalId))
				.call()
				.content();
			assertThat(answer).isEqualTo("Here it is.");
			assertThat(tool.documentIds).containsExactly("D-7");
			assertThat(tool.metas).singleElement()
				.satisfies((meta) -> assertThat(meta).containsEntry("document_ref", SECRET_REF));
			await("tool-call hooks do not run again").during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(60))
				.until(observed::isEmpty);
		}
	}

	@Test
	void aRefusedMcpCallDoesNotReachTheServerAndTheOtherCallGetsItsOwnMeta() {
		openAi.reply(LoopbackOpenAiServer.Reply.toolCalls(
				new LoopbackOpenAiServer.ToolCall("call_1", "get_document", "{\"documentId\":\"D-9\"}"),
				new LoopbackOpenAiServer.ToolCall("call_2", "get_document", "{\"documentId\":\"D-1\"}")));
		openAi.text("Here is D-1; D-9 is not yours.");
		String reply = chatClient().prompt()
			.user("Show D-9 and D-1")
			.tools(client.getBean(SyncMcpToolCallbackProvider.class))
			.call()
			.content();
		assertThat(reply).isEqualTo("Here is D-1; D-9 is not yours.");
		DocumentServer.DocumentTool tool = server.getBean(DocumentServer.DocumentTool.class);
		assertThat(tool.documentIds).containsExactly("D-1");
		assertThat(tool.metas).singleElement()
			.satisfies((meta) -> assertThat(meta).containsEntry("document_ref", SECRET_REF));
		List<String> messages = openAi.messages(1);
		assertThat(messages.get(messages.size() - 2)).isEqualTo("tool: " + NOT_YOURS);
		assertThat(messages.get(messages.size() - 1)).startsWith("tool: ").contains("document D-1 fetched");
		await().atMost(Duration.ofSeconds(60)).until(() -> client.getBean(MetaHooks.class).observed.size() == 2);
	}

	@Test
	void theSameHookOnALocalToolDropsTheMetadata() {
		openAi.toolCall("call_1", "note", "{\"text\":\"hi\"}");
		openAi.text("Noted.");
		LocalTools local = new LocalTools();
		chatClient().prompt().user("Note hi").tools(local).toolContext(Map.of("tenant", "acme")).call().content();
		assertThat(local.contexts).singleElement()
			.satisfies((context) -> assertThat(context).containsEntry("tenant", "acme")
				.doesNotContainKey("mantle.mcp_meta")
				.doesNotContainValue(Map.of("document_ref", SECRET_REF)));
		assertThat(openAi.requestBody(1)).doesNotContain(SECRET_REF);
		// let the tool-call observer finish before the next test clears what it saw
		await().atMost(Duration.ofSeconds(60)).until(() -> client.getBean(MetaHooks.class).observed.size() == 1);
	}

	private static ChatClient chatClient() {
		return client.getBean(ChatClient.Builder.class).build();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ChatApp {

		@Bean
		MetaHooks metaHooks() {
			return new MetaHooks();
		}

	}

	/**
	 * Attaches metadata only the MCP server should see.
	 */
	static class MetaHooks {

		final List<ToolCallPayload> observed = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload attach(ToolCallPayload call) {
			ToolCallPayload attached = call.withMetadata(Map.of("document_ref", SECRET_REF));
			return REFUSED_DOCUMENT.equals(call.arguments().get("documentId")) ? attached.withRefusal(NOT_YOURS)
					: attached;
		}

		@OnToolCall
		void watch(ToolCallPayload call) {
			this.observed.add(call);
		}

	}

	static class LocalTools {

		final List<Map<String, Object>> contexts = new CopyOnWriteArrayList<>();

		@Tool(name = "note", description = "Take a note")
		String note(String text, ToolContext toolContext) {
			this.contexts.add(Map.copyOf(toolContext.getContext()));
			return "noted";
		}

	}

}
