package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.client.advisor.observation.AdvisorObservationContext;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hook advisors go on through Spring AI's advisor chain as Spring AI means it: every
 * hop is the chain's (and observed as such), the tool loop goes through a copy of the
 * chain for each model call, as Spring AI's own tool advisor does, and an advisor of the
 * application keeps its place, runs as often as without hooks, and runs where Spring AI
 * runs it: never on a hook's thread.
 */
class AdvisorChainTests {

	/** The name of the tool advisor Spring AI adds to a chain that has none. */
	private static final String SPRING_TOOL_ADVISOR = "Tool Calling Advisor";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final AdvisorNames advisors = new AdvisorNames();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("observationRegistry", ObservationRegistry.class, this::observationRegistry)
		.withBean("requestHooks", RequestHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void aStreamedToolTurnHopsThroughEveryAdvisorOncePerModelCall() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"A1\"}")),
				Reply.text("Refunded A1."));
		this.contextRunner.run((context) -> {
			CountingRefundTools tools = new CountingRefundTools();
			List<String> reply = client(context).prompt()
				.user("Refund A1")
				.tools(tools)
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", reply)).isEqualTo("Refunded A1.");
			assertThat(tools.refunds).hasValue(1);
			RequestHooks hooks = context.getBean(RequestHooks.class);
			assertThat(hooks.requests).hasValue(2);
			assertThat(this.openAi.requests()).hasSize(2);
			assertThat(this.openAi.messages(1)).containsExactly("user: Refund A1",
					"assistant: [refund({\"order\":\"A1\"})]", "tool: \"refunded A1\"");
			// the turn, Spring AI's tool advisor (taken over: it passes the loop's reply
			// on) and the tool loop once, the model-call advisor and Spring AI's model
			// advisor once per model call
			assertThat(this.advisors.names).containsExactly("mantleTurn", SPRING_TOOL_ADVISOR, "mantleToolLoop",
					"mantleModelCall", "stream", "mantleModelCall", "stream");
		});
	}

	@Test
	void aCallStillHopsThroughEveryAdvisor() {
		this.openAi.reply(Reply.text("Hello."));
		this.contextRunner.run((context) -> {
			String reply = client(context).prompt().user("Hi").call().content();
			assertThat(reply).isEqualTo("Hello.");
			assertThat(this.advisors.names).containsExactly("mantleTurn", SPRING_TOOL_ADVISOR, "mantleToolLoop",
					"mantleModelCall", "call");
		});
	}

	@Test
	void anAdvisorBetweenTheToolLoopAndTheModelCallRunsOnEveryModelCallBeforeTheHook() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"A1\"}")),
				Reply.text("Refunded A1."));
		this.contextRunner.run((context) -> {
			Briefing briefing = new Briefing();
			List<String> reply = client(context).prompt()
				.user("Refund A1")
				.tools(new CountingRefundTools())
				.advisors(briefing)
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", reply)).isEqualTo("Refunded A1.");
			assertThat(briefing.calls).hasValue(2);
			// the hook sees the request as the advisor left it, on both model calls
			assertThat(context.getBean(RequestHooks.class).systemTexts).containsExactly("Be brief.", "Be brief.");
			assertThat(this.openAi.messages(0)).containsExactly("system: Be brief.", "user: Refund A1");
			assertThat(this.openAi.messages(1)).startsWith("system: Be brief.", "user: Refund A1");
			assertThat(this.advisors.names).containsExactly("mantleTurn", SPRING_TOOL_ADVISOR, "mantleToolLoop",
					"briefing", "mantleModelCall", "stream", "briefing", "mantleModelCall", "stream");
			// never on a hook's thread, in either direction
			assertThat(briefing.threads).hasSize(4)
				.allSatisfy((thread) -> assertThat(thread).doesNotStartWith(ToolBatchHandOffTests.HOOK_THREAD));
		});
	}

	@Test
	void chatMemoryBetweenTheTurnAndTheToolLoopKeepsTheConversation() {
		this.openAi.reply(Reply.text("Hello Ann."), Reply.text("Your name is Ann."));
		this.contextRunner.run((context) -> {
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClient client = client(context);
			for (String question : List.of("I am Ann.", "What is my name?")) {
				client.prompt()
					.user(question)
					.advisors(ChatTestSupport.memory(memory, "c1"))
					.stream()
					.content()
					.collectList()
					.block(Duration.ofSeconds(60));
			}
			assertThat(this.openAi.messages(1)).containsExactly("user: I am Ann.", "assistant: Hello Ann.",
					"user: What is my name?");
			assertThat(ChatTurnTests.texts(memory.get("c1"))).containsExactly("USER: I am Ann.",
					"ASSISTANT: Hello Ann.", "USER: What is my name?", "ASSISTANT: Your name is Ann.");
			assertThat(context.getBean(RequestHooks.class).requests).hasValue(2);
		});
	}

	@Test
	void theCallersChunksCarryTheApplicationsContextAndTheTurnButNoneOfTheEnginesKeys() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"A1\"}")),
				Reply.text("Refunded A1."));
		this.contextRunner.run((context) -> {
			Briefing briefing = new Briefing();
			List<ChatClientResponse> chunks = refundA1ForTenant(context, new CountingRefundTools(), briefing);
			assertThat(chunks).isNotEmpty();
			assertThat(chunks).allSatisfy((chunk) -> assertThat(chunk.context()).containsEntry("tenant", "t1")
				.containsKey(MantleHooks.TURN_ID)
				.doesNotContainKey(Turn.CONTEXT_KEY));
			// the application's advisor still finishes each model call within the turn
			assertThat(briefing.turnsAfter).hasSize(2).doesNotContainNull();
			assertThat(briefing.turnsAfter.get(0)).isSameAs(briefing.turnsAfter.get(1));
		});
	}

	@Test
	void withNoObservationHandlerOfTheApplicationTheTurnsAreTheSame() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"A1\"}")),
				Reply.text("Refunded A1."), Reply.text("Hello."));
		// Boot's registry with no handler of the application: it keeps only chat-model
		// observations (the unhooked-call check's predicate)
		ChatTestSupport.contextRunner(this.openAi)
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.withBean("requestHooks", RequestHooks.class)
			.withPropertyValues("mantle.hooks.unhooked-calls=fail")
			.run((context) -> {
				CountingRefundTools tools = new CountingRefundTools();
				List<ChatClientResponse> chunks = refundA1ForTenant(context, tools);
				assertThat(chunks).isNotEmpty();
				assertThat(chunks.stream()
					.map(ChatClientResponse::chatResponse)
					.filter((response) -> response != null && response.getResult() != null)
					.map((response) -> String.valueOf(response.getResult().getOutput().getText()))
					.collect(Collectors.joining())).isEqualTo("Refunded A1.");
				assertThat(tools.refunds).hasValue(1);
				assertThat(this.openAi.messages(1)).containsExactly("user: Refund A1",
						"assistant: [refund({\"order\":\"A1\"})]", "tool: \"refunded A1\"");
				// the application's context reaches the model advisor and comes back in
				// every chunk, with the turn's id and without the engine's keys
				assertThat(chunks).allSatisfy((chunk) -> assertThat(chunk.context()).containsEntry("tenant", "t1")
					.containsKey(MantleHooks.TURN_ID)
					.doesNotContainKey(Turn.CONTEXT_KEY));
				assertThat(client(context).prompt().user("Hi").call().content()).isEqualTo("Hello.");
				// both turns' model calls were within a hooked turn: the fail policy of
				// the unhooked-call check refused none of the three
				assertThat(context.getBean(RequestHooks.class).requests).hasValue(3);
				assertThat(this.openAi.requests()).hasSize(3);
			});
	}

	/**
	 * Stream "Refund A1" with the tenant {@code t1} in the advisor context, and the given
	 * advisors of the application.
	 */
	private static List<ChatClientResponse> refundA1ForTenant(AssertableApplicationContext context, Object tools,
			Advisor... advisors) {
		return client(context).prompt()
			.user("Refund A1")
			.tools(tools)
			.advisors(advisors)
			.advisors((spec) -> spec.param("tenant", "t1"))
			.stream()
			.chatClientResponse()
			.collectList()
			.block(Duration.ofSeconds(60));
	}

	private static ChatClient client(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context)
			.mutate()
			.defaultAdvisors(MantleHooks.identity("user-1", Channel.of("web")))
			.build();
	}

	private ObservationRegistry observationRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(this.advisors);
		return registry;
	}

	/** The advisors Spring AI's chain hopped into, one entry per hop. */
	static final class AdvisorNames implements ObservationHandler<AdvisorObservationContext> {

		final List<String> names = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(AdvisorObservationContext context) {
			this.names.add(context.getAdvisorName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof AdvisorObservationContext;
		}

	}

	static class RequestHooks {

		final AtomicInteger requests = new AtomicInteger();

		final List<String> systemTexts = new CopyOnWriteArrayList<>();

		@ModifyModelRequest
		ModelRequestPayload count(ModelRequestPayload request) {
			this.requests.incrementAndGet();
			for (Message message : request.messages()) {
				if (message.getMessageType().getValue().equals("system")) {
					this.systemTexts.add(message.getText());
				}
			}
			return request;
		}

	}

	/** A RAG-like advisor of the application: between the tool loop and the model. */
	static final class Briefing implements BaseAdvisor {

		final AtomicInteger calls = new AtomicInteger();

		/** The turn current when {@code after} ran, once per model call. */
		final List<Turn> turnsAfter = Collections.synchronizedList(new ArrayList<>());

		/** The threads {@code before} and {@code after} ran on. */
		final List<String> threads = new CopyOnWriteArrayList<>();

		@Override
		public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
			this.calls.incrementAndGet();
			this.threads.add(Thread.currentThread().getName());
			return request.mutate().prompt(request.prompt().augmentSystemMessage("Be brief.")).build();
		}

		@Override
		public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
			this.threads.add(Thread.currentThread().getName());
			this.turnsAfter.add(CurrentTurn.get());
			return response;
		}

		@Override
		public String getName() {
			return "briefing";
		}

		@Override
		public int getOrder() {
			return 0;
		}

	}

}
