package io.mantlehooks.ai;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.Channel;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.OnToolResult;
import io.mantlehooks.approval.ToolApprovalPolicy;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.hamcrest.Matchers.hasSize;

/**
 * Two instances of one application ("A" and "B") on one PostgreSQL, with Spring AI's JDBC
 * chat memory and the real OpenAI client against a fake server on loopback: a turn paused
 * for approval on A is refused to another sender on B and then approved on B by its own
 * sender, and its tool runs once; rejected messages stay in the transcript, marked
 * discarded, and out of the model's history; two instances approving one batch at the
 * same time run it once.
 */
class TwoInstancesTests {

	private static final String CONVERSATION = "conversation-42";

	private static final String RACE = "conversation-43";

	private static final String SUPPORT = "conversation-44";

	private static EmbeddedPostgres postgres;

	private static LoopbackOpenAiServer openAi;

	private static ConfigurableApplicationContext instanceA;

	private static ConfigurableApplicationContext instanceB;

	@BeforeAll
	static void start() throws IOException {
		postgres = EmbeddedPostgres.builder().start();
		openAi = new LoopbackOpenAiServer();
		instanceA = instance();
		instanceB = instance();
	}

	@AfterAll
	static void stop() throws IOException {
		instanceA.close();
		instanceB.close();
		openAi.close();
		postgres.close();
	}

	private static ConfigurableApplicationContext instance() {
		return new SpringApplicationBuilder(ShopApplication.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres"),
					"spring.datasource.username=postgres", "spring.datasource.password=postgres",
					"spring.ai.chat.memory.repository.jdbc.initialize-schema=always",
					"mantle.hooks.jdbc.initialize-schema=always", "mantle.hooks.transcript.enabled=true",
					"mantle.hooks.approvals.tools=refund", "mantle.hooks.responses.utter_no_spam=Sorry, no spam here.",
					"spring.ai.openai.base-url=" + openAi.baseUrl(), "spring.ai.openai.api-key=test-key",
					"spring.ai.openai.chat.model=fake-model", "spring.ai.openai.max-retries=0",
					"spring.ai.mcp.client.enabled=false", "spring.ai.mcp.server.enabled=false",
					"spring.ai.model.embedding=none", "spring.ai.model.image=none", "spring.ai.model.audio.speech=none",
					"spring.ai.model.audio.transcription=none", "spring.ai.model.moderation=none")
			.run();
	}

	@Test
	void aConversationMovesBetweenInstancesThroughTheDatabase() {
		openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"42\"}")),
				Reply.text("Order 42 is refunded."), Reply.text("You're welcome."));
		int refundsOnA = tools(instanceA).refunds.get();
		int refundsOnB = tools(instanceB).refunds.get();
		ChatClientResponse paused = turn(instanceA, "Refund order 42", null);
		assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval");
		String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);

		// another sender in the conversation, on B: refused before the claim,
		// nothing runs
		ChatClientResponse refused = turn(instanceB, "Yes, run it", approvalId, CONVERSATION, "mallory");
		assertThat(refused.context()).containsEntry(MantleHooks.OUTCOME, "approval_not_allowed");
		assertThat(tools(instanceB).refunds).hasValue(refundsOnB);

		// the batch still waits for the customer who paused it
		ChatClientResponse approved = turn(instanceB, "Yes, go ahead", approvalId);
		assertThat(text(approved)).isEqualTo("Order 42 is refunded.");
		assertThat(tools(instanceA).refunds).hasValue(refundsOnA);
		assertThat(tools(instanceB).refunds).hasValue(refundsOnB + 1);
		// B sent the model A's paused exchange with the result of the call it ran
		assertThat(openAi.messages(openAi.requests().size() - 1)).containsSubsequence("user: Refund order 42",
				"assistant: [refund({\"order\":\"42\"})]", "tool: \"refunded 42\"");

		ChatClientResponse rejected = turn(instanceB, "send me spam", null);
		assertThat(rejected.context()).containsEntry(MantleHooks.OUTCOME, "rejected");
		assertThat(text(rejected)).isEqualTo("Sorry, no spam here.");

		assertThat(text(turn(instanceA, "Thanks", null))).isEqualTo("You're welcome.");
		List<String> lastRequest = openAi.messages(openAi.requests().size() - 1);
		assertThat(lastRequest).contains("user: Refund order 42", "assistant: Order 42 is refunded.", "user: Thanks")
			.noneMatch((message) -> message.contains("spam"));

		// each instance writes its turns' entries in the background: A reads B's
		// once written
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> instanceA.getBean(TranscriptStore.class).find(CONVERSATION), hasSize(10));
		List<TranscriptEntry> transcript = instanceA.getBean(TranscriptStore.class).find(CONVERSATION);
		assertThat(transcript)
			.extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::discarded,
					TranscriptEntry::outcome)
			.containsExactly(tuple(TranscriptRole.USER, "Refund order 42", false, null), tuple(TranscriptRole.ASSISTANT,
					"I need your approval before I run:\nrefund {\"order\":\"42\"}", false, "awaiting_approval"),
					tuple(TranscriptRole.USER, "Yes, run it", false, null),
					tuple(TranscriptRole.ASSISTANT, "Sorry, you can't approve or decline that request.", false,
							"approval_not_allowed"),
					tuple(TranscriptRole.USER, "Yes, go ahead", false, null),
					tuple(TranscriptRole.ASSISTANT, "Order 42 is refunded.", false, null),
					tuple(TranscriptRole.USER, "send me spam", true, "rejected"),
					tuple(TranscriptRole.ASSISTANT, "Sorry, no spam here.", true, "rejected"),
					tuple(TranscriptRole.USER, "Thanks", false, null),
					tuple(TranscriptRole.ASSISTANT, "You're welcome.", false, null));
		assertThat(instanceB.getBean(TranscriptStore.class).find(CONVERSATION)).isEqualTo(transcript);
	}

	@Test
	void twoInstancesApprovingOneBatchAtOnceRunItOnce() throws Exception {
		openAi.reply(Reply.toolCalls(new ToolCall("call_9", "refund", "{\"order\":\"43\"}")),
				Reply.text("Order 43 is refunded."));
		String approvalId = (String) turn(instanceA, "Refund order 43", null, RACE).context()
			.get(MantleHooks.APPROVAL_ID);
		int before = tools(instanceA).refunds.get() + tools(instanceB).refunds.get();
		CountDownLatch go = new CountDownLatch(1);
		CompletableFuture<ChatClientResponse> onA = CompletableFuture.supplyAsync(() -> {
			await(go);
			return turn(instanceA, "Yes", approvalId, RACE);
		});
		CompletableFuture<ChatClientResponse> onB = CompletableFuture.supplyAsync(() -> {
			await(go);
			return turn(instanceB, "Yes", approvalId, RACE);
		});
		go.countDown();
		List<Object> outcomes = List.of(String.valueOf(onA.get().context().get(MantleHooks.OUTCOME)),
				String.valueOf(onB.get().context().get(MantleHooks.OUTCOME)));
		assertThat(outcomes).containsExactlyInAnyOrder("null", "approval_not_found");
		assertThat(tools(instanceA).refunds.get() + tools(instanceB).refunds.get()).isEqualTo(before + 1);
	}

	@Test
	void aBatchPausedByAnAgentsHookIsApprovedOnTheOtherInstanceAndOnlyThatAgentRunsItsHooks() {
		openAi.reply(Reply.toolCalls(new ToolCall("call_44", "cancel", "{\"order\":\"44\"}")),
				Reply.text("Order 44 is cancelled."));
		int cancelsBefore = cancels(instanceA) + cancels(instanceB);
		ChatClientResponse paused = agentTurn(instanceA, "support", "Cancel order 44", null, SUPPORT);
		assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval")
			.containsEntry(MantleHooks.AGENT, "support");
		assertThat(guard(instanceA).toolCalls).containsExactly("cancel");
		assertThat(cancels(instanceA) + cancels(instanceB)).isEqualTo(cancelsBefore);
		String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);

		ChatClientResponse approved = agentTurn(instanceB, "support", "Yes, cancel it", approvalId, SUPPORT);
		assertThat(text(approved)).isEqualTo("Order 44 is cancelled.");
		assertThat(approved.context()).containsEntry(MantleHooks.AGENT, "support");
		// run once, on B, and B's support hook saw its result
		assertThat(cancels(instanceA) + cancels(instanceB)).isEqualTo(cancelsBefore + 1);
		assertThat(guard(instanceB).toolResults).containsExactly("cancel: \"cancelled 44\"");
		assertThat(guard(instanceA).toolResults).isEmpty();
		// B runs the stored batch as A's hook left it, without that hook
		assertThat(guard(instanceB).toolCalls).isEmpty();

		// the default agent's clients, on either instance, run no support hook: the
		// cancel needs no approval there
		for (ConfigurableApplicationContext instance : List.of(instanceA, instanceB)) {
			int cancels = cancels(instance);
			openAi.reply(Reply.toolCalls(new ToolCall("call_45", "cancel", "{\"order\":\"45\"}")),
					Reply.text("Order 45 is cancelled."));
			ChatClientResponse direct = agentTurn(instance, null, "Cancel order 45", null, "conversation-45");
			assertThat(direct.context()).doesNotContainKey(MantleHooks.APPROVAL_ID)
				.containsEntry(MantleHooks.AGENT, MantleHooks.DEFAULT_AGENT);
			assertThat(direct.context().get(MantleHooks.OUTCOME)).isNull();
			assertThat(text(direct)).isEqualTo("Order 45 is cancelled.");
			assertThat(cancels(instance)).isEqualTo(cancels + 1);
		}
		assertThat(guard(instanceA).toolCalls).containsExactly("cancel");
		assertThat(guard(instanceB).toolCalls).isEmpty();
		assertThat(guard(instanceA).toolResults).isEmpty();
		assertThat(guard(instanceB).toolResults).containsExactly("cancel: \"cancelled 44\"");
	}

	private static ChatClientResponse agentTurn(ConfigurableApplicationContext instance, String agent, String text,
			String approvalId, String conversation) {
		ChatClient.Builder builder = instance.getBean(ChatClient.Builder.class);
		if (agent != null) {
			builder = builder.defaultAdvisors(MantleHooks.agent(agent));
		}
		ChatClient.ChatClientRequestSpec spec = builder.build()
			.prompt()
			.user(text)
			.tools(instance.getBean(CountingCancelTools.class))
			.advisors(MessageChatMemoryAdvisor.builder(instance.getBean(ChatMemory.class)).build())
			.advisors((advisors) -> advisors.param(ChatMemory.CONVERSATION_ID, conversation))
			.advisors(MantleHooks.identity("customer-7", Channel.of("web")));
		if (approvalId != null) {
			spec = spec.advisors(MantleHooks.approve(approvalId));
		}
		return spec.call().chatClientResponse();
	}

	private static int cancels(ConfigurableApplicationContext instance) {
		return instance.getBean(CountingCancelTools.class).cancels.get();
	}

	private static SupportGuard guard(ConfigurableApplicationContext instance) {
		return instance.getBean(SupportGuard.class);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static ChatClientResponse turn(ConfigurableApplicationContext instance, String text, String approvalId) {
		return turn(instance, text, approvalId, CONVERSATION);
	}

	private static ChatClientResponse turn(ConfigurableApplicationContext instance, String text, String approvalId,
			String conversation) {
		return turn(instance, text, approvalId, conversation, "customer-7");
	}

	private static ChatClientResponse turn(ConfigurableApplicationContext instance, String text, String approvalId,
			String conversation, String sender) {
		ChatClient.ChatClientRequestSpec spec = instance.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(text)
			.tools(tools(instance))
			.advisors(MessageChatMemoryAdvisor.builder(instance.getBean(ChatMemory.class)).build())
			.advisors((advisors) -> advisors.param(ChatMemory.CONVERSATION_ID, conversation))
			.advisors(MantleHooks.identity(sender, Channel.of("web")));
		if (approvalId != null) {
			spec = spec.advisors(MantleHooks.approve(approvalId));
		}
		return spec.call().chatClientResponse();
	}

	private static CountingRefundTools tools(ConfigurableApplicationContext instance) {
		return instance.getBean(CountingRefundTools.class);
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ShopApplication {

		@Bean
		CountingRefundTools shopTools() {
			return new CountingRefundTools();
		}

		@Bean
		SpamFilter spamFilter() {
			return new SpamFilter();
		}

		@Bean
		CountingCancelTools cancelTools() {
			return new CountingCancelTools();
		}

		@Bean
		SupportGuard supportGuard() {
			return new SupportGuard();
		}

		@Bean
		ToolApprovalPolicy approvalAskedForByAHook() {
			return (call) -> "required".equals(call.headers().get(SupportGuard.APPROVAL));
		}

	}

	static class CountingCancelTools {

		final AtomicInteger cancels = new AtomicInteger();

		@Tool(name = "cancel", description = "Cancel an order")
		String cancel(String order) {
			this.cancels.incrementAndGet();
			return "cancelled " + order;
		}

	}

	/**
	 * The support agent's guard: its tool-call hook asks for approval of every cancel (a
	 * header the approval policy reads), and it watches the results.
	 */
	@ForAgent("support")
	static class SupportGuard {

		static final String APPROVAL = "x-approval";

		final List<String> toolCalls = new CopyOnWriteArrayList<>();

		final List<String> toolResults = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload askForApproval(ToolCallPayload call) {
			this.toolCalls.add(call.toolName());
			return "cancel".equals(call.toolName()) ? call.withHeaders(Map.of(APPROVAL, "required")) : call;
		}

		@OnToolResult
		void watch(ToolResultPayload result) {
			this.toolResults.add(result.toolName() + ": " + result.value());
		}

	}

	static class SpamFilter {

		@ModifyIncomingMessage
		IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_no_spam");
			}
			return message;
		}

	}

}
