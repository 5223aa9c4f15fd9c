package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.ToolAdvisor;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that brings its own tool advisor, to tune it, works with hooks: the starter's
 * loop takes Spring AI's {@link ToolCallingAdvisor} over (its {@link ToolCallingManager}
 * runs the tools, and every call passes the tool hooks), whether the application added it
 * to the client, added it per call, or tuned the one Spring AI adds itself through the
 * {@code ToolCallingAdvisor.Builder} bean. Another kind of {@link ToolAdvisor} keeps its
 * place, and the first turn through it says that tool calls it runs itself would not pass
 * the hooks. Real OpenAI client over HTTP.
 */
@ExtendWith(OutputCaptureExtension.class)
class ApplicationToolAdvisorTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final RecordingManager manager = new RecordingManager();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("toolHooks", GuardHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void anApplicationsToolCallingAdvisorIsTakenOverAndEveryCallPassesTheHooks(String driver) {
		this.openAi.reply(lookUpA1(), Reply.text("A1 is paid."));
		this.contextRunner.run((context) -> {
			ChatClient client = ChatTestSupport.chatClient(context)
				.mutate()
				.defaultAdvisors(ToolCallingAdvisor.builder().toolCallingManager(this.manager).build())
				.build();
			assertThat(ask(client, driver)).isEqualTo("A1 is paid.");
			assertHooksRanThroughTheApplicationsManager(context);
		});
	}

	@Test
	void aToolCallingAdvisorAddedForOneCallIsTakenOverToo() {
		this.openAi.reply(lookUpA1(), Reply.text("A1 is paid."));
		this.contextRunner.run((context) -> {
			String reply = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Where is A1?")
				.tools(new LookupTools())
				.advisors(ToolCallingAdvisor.builder().toolCallingManager(this.manager).build())
				.call()
				.content();
			assertThat(reply).isEqualTo("A1 is paid.");
			assertHooksRanThroughTheApplicationsManager(context);
		});
	}

	@Test
	void theToolCallingAdvisorBuilderBeanTunesTheAdvisorTheLoopTakesOver() {
		this.openAi.reply(lookUpA1(), Reply.text("A1 is paid."));
		this.contextRunner
			.withBean(ToolCallingAdvisor.Builder.class,
					() -> ToolCallingAdvisor.builder().toolCallingManager(this.manager))
			.run((context) -> {
				assertThat(ask(ChatTestSupport.chatClient(context), "call")).isEqualTo("A1 is paid.");
				assertHooksRanThroughTheApplicationsManager(context);
			});
	}

	@Test
	void aSubclassWhoseLoopMethodsDoNotRunIsNamedOnce(CapturedOutput output) {
		this.openAi.reply(lookUpA1(), Reply.text("A1 is paid."), lookUpA1(), Reply.text("A1 is paid."));
		this.contextRunner.run((context) -> {
			ChatClient client = ChatTestSupport.chatClient(context)
				.mutate()
				.defaultAdvisors(new BriefingToolAdvisor(this.manager))
				.build();
			assertThat(ask(client, "call")).isEqualTo("A1 is paid.");
			assertThat(ask(client, "stream")).isEqualTo("A1 is paid.");
			assertThat(this.manager.executed).containsExactly("lookup", "lookup");
		});
		assertThat(output)
			.containsOnlyOnce("The tool advisor " + BriefingToolAdvisor.class.getName()
					+ " is taken over by the mantle-hooks tool loop")
			.contains("[doBeforeCall] do not run");
	}

	@Test
	void anotherToolAdvisorKeepsItsPlaceAndIsNamedOnce(CapturedOutput output) {
		this.openAi.reply(lookUpA1(), Reply.text("A1 is paid."), lookUpA1(), Reply.text("A1 is paid."));
		this.contextRunner.run((context) -> {
			ChatClient client = ChatTestSupport.chatClient(context)
				.mutate()
				.defaultAdvisors(new PassingToolAdvisor())
				.build();
			for (int i = 0; i < 2; i++) {
				assertThat(ask(client, "call")).isEqualTo("A1 is paid.");
			}
			GuardHooks hooks = context.getBean(GuardHooks.class);
			assertThat(hooks.events).containsExactly("call:lookup", "result:lookup", "call:lookup", "result:lookup");
		});
		assertThat(output).containsOnlyOnce("The tool advisor 'passing' (" + PassingToolAdvisor.class.getName()
				+ ") sits inside the mantle-hooks tool loop");
	}

	private void assertHooksRanThroughTheApplicationsManager(AssertableApplicationContext context) {
		assertThat(this.manager.executed).containsExactly("lookup");
		GuardHooks hooks = context.getBean(GuardHooks.class);
		assertThat(hooks.events).containsExactly("call:lookup", "result:lookup");
		// the model read the result as the result hook left it
		assertThat(this.openAi.messages(1)).contains("tool: \"A1 paid with card [card]\"");
	}

	private static Reply lookUpA1() {
		return Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"));
	}

	private static String ask(ChatClient client, String driver) {
		ChatClient.ChatClientRequestSpec request = client.prompt().user("Where is A1?").tools(new LookupTools());
		if (driver.equals("call")) {
			return request.call().content();
		}
		List<String> chunks = request.stream().content().collectList().block(Duration.ofSeconds(60));
		assertThat(chunks).isNotNull();
		return String.join("", chunks);
	}

	static class LookupTools {

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			return id + " paid with card 4111";
		}

	}

	static class GuardHooks {

		final List<String> events = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload call(ToolCallPayload call) {
			this.events.add("call:" + call.toolName());
			return call;
		}

		@ModifyToolResult
		ToolResultPayload result(ToolResultPayload result) {
			this.events.add("result:" + result.toolName());
			return result.withValue(result.value().replace("4111", "[card]"));
		}

	}

	/**
	 * The application's tuned manager: Spring AI's default one, recording which tools it
	 * executed.
	 */
	static final class RecordingManager implements ToolCallingManager {

		final List<String> executed = new CopyOnWriteArrayList<>();

		private final ToolCallingManager delegate = ToolCallingManager.builder().build();

		@Override
		public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
			return this.delegate.resolveToolDefinitions(chatOptions);
		}

		@Override
		public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
			chatResponse.getResult().getOutput().getToolCalls().forEach((call) -> this.executed.add(call.name()));
			return this.delegate.executeToolCalls(prompt, chatResponse);
		}

	}

	/** A tool advisor of the application that adds a system note before each call. */
	static final class BriefingToolAdvisor extends ToolCallingAdvisor {

		BriefingToolAdvisor(ToolCallingManager manager) {
			super(manager, (response) -> response != null && response.hasToolCalls(), DEFAULT_ORDER, true);
		}

		@Override
		protected ChatClientRequest doBeforeCall(ChatClientRequest request, CallAdvisorChain chain) {
			return request.mutate().prompt(request.prompt().augmentSystemMessage("Be brief.")).build();
		}

	}

	/** A tool advisor that only passes requests and responses on. */
	static final class PassingToolAdvisor implements ToolAdvisor, BaseAdvisor {

		@Override
		public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
			return request;
		}

		@Override
		public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
			return response;
		}

		@Override
		public String getName() {
			return "passing";
		}

		@Override
		public int getOrder() {
			// after the starter's loop: inside it
			return ToolCallingAdvisor.DEFAULT_ORDER + 1;
		}

	}

}
