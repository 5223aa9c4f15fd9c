package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.RetryModel;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tool-call batches through the real OpenAI client: preflight before any tool runs,
 * retries that discard the whole batch, fail-closed preflight, and tool-result rewrites
 * that are what the model sees next.
 */
class ToolTurnTests {

	private static final String TOOL_ERROR = "Sorry, I couldn't complete that action. Please try again.";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi);

	private final ApplicationContextRunner withToolHooks = this.contextRunner.withBean("toolHooks", ToolHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void batchPreflightRunsInOrderBeforeAnyToolRuns() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"A1\"}")), Reply.text("Refunded A1."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			String reply = ask(context, hooks, "Refund A1");
			assertThat(reply).isEqualTo("Refunded A1.");
			assertThat(hooks.events).containsExactly("preflight:lookup", "preflight:refund", "run:lookup A1",
					"result:lookup=\"A1 found\"", "run:refund A1", "result:refund=\"A1 refunded\"");
			assertThat(this.openAi.messages(1)).containsExactly("user: Refund A1",
					"assistant: [lookup({\"id\":\"A1\"}), refund({\"id\":\"A1\"})]", "tool: \"A1 found\"",
					"tool: \"A1 refunded\"");
		});
	}

	@Test
	void retryFromTheSecondCallDiscardsTheWholeBatch() {
		this.openAi.reply(
				Reply.textAndToolCalls("Refunding now.", new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
						new ToolCall("call_2", "refund", "{\"id\":\"A1\"}")),
				Reply.text("Please confirm the refund of A1."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> {
				if (call.toolName().equals("refund")) {
					throw new RetryModel("Ask the user to confirm refunds first.");
				}
				return call;
			};
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			String reply = chatClient(context).prompt()
				.user("Refund A1")
				.tools(new ShopTools(hooks.events))
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			assertThat(reply).isEqualTo("Please confirm the refund of A1.");
			assertThat(hooks.events).containsExactly("preflight:lookup", "preflight:refund");
			assertThat(this.openAi.messages(1)).containsExactly("user: Refund A1",
					"system: Ask the user to confirm refunds first.");
			assertThat(ChatTurnTests.texts(memory.get("c1"))).containsExactly("USER: Refund A1",
					"ASSISTANT: Please confirm the refund of A1.");
		});
	}

	@Test
	void crashingPreflightFailsClosed() {
		this.openAi.reply(Reply.textAndToolCalls("Refunding.", new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"A1\"}")));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> {
				if (call.toolName().equals("refund")) {
					throw new IllegalStateException("policy store down at 10.0.0.7");
				}
				return call;
			};
			assertFailsClosed(context, hooks);
		});
	}

	@Test
	void timedOutPreflightFailsClosed() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"A1\"}")));
		CountDownLatch release = new CountDownLatch(1);
		// the same hook also passes the healthy lookup first: a timeout it never reaches
		// on a loaded machine, and the refund's preflight hangs until the test ends
		this.withToolHooks.withPropertyValues("mantle.hooks.timeouts.hook[toolHooks.preflight]=5s").run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> {
				if (call.toolName().equals("refund")) {
					hang(release);
				}
				return call;
			};
			try {
				assertFailsClosed(context, hooks);
			}
			finally {
				release.countDown();
			}
		});
	}

	@Test
	void duplicateToolCallIdsFailClosedWhenToolHooksRun() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_1", "refund", "{\"id\":\"A1\"}")));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			ChatClientResponse response = chatClient(context).prompt()
				.user("Refund A1")
				.tools(new ShopTools(hooks.events))
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo(TOOL_ERROR);
			assertThat(hooks.events).isEmpty();
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
		});
	}

	@Test
	void callsWithoutIdsAreNotDuplicates() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("", "refund", "{\"id\":\"A1\"}")), Reply.text("Done."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			String reply = ask(context, hooks, "Refund A1");
			assertThat(reply).isEqualTo("Done.");
			assertThat(hooks.events).contains("run:lookup A1", "run:refund A1");
		});
	}

	@Test
	void springAiToolCallLimitsStillApplyWithToolHooks() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")), Reply.text("Done."));
		this.withToolHooks.withPropertyValues("spring.ai.tools.limits.max-calls-per-tool-default=1").run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			ask(context, hooks, "Look up both");
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:")).containsExactly("run:lookup A1");
		});
	}

	@Test
	void withoutToolHooksTheBatchIsDispatchedUntouched() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"A1\"}")), Reply.text("Done."));
		this.contextRunner.run((context) -> {
			List<String> events = new CopyOnWriteArrayList<>();
			String reply = chatClient(context).prompt().user("Refund A1").tools(new ShopTools(events)).call().content();
			assertThat(reply).isEqualTo("Done.");
			assertThat(events).containsExactly("run:lookup A1", "run:refund A1");
		});
	}

	@Test
	void rewrittenCallRunsWithTheHooksArgumentsAndObserversSeeNoMetadata() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\" a1 \"}")), Reply.text("Ok."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call
				.withArguments(Map.of("id", call.arguments().get("id").toString().trim().toUpperCase()))
				.withMetadata(Map.of("tenant", "acme"));
			ask(context, hooks, "Look up a1");
			assertThat(hooks.events).contains("run:lookup A1");
			assertThat(this.openAi.messages(1)).contains("assistant: [lookup({\"id\":\"A1\"})]");
			await().atMost(Duration.ofSeconds(60)).until(() -> !hooks.observedCalls.isEmpty());
			assertThat(hooks.observedCalls.get(0).metadata()).isEmpty();
		});
	}

	@Test
	void callRewrittenToAToolThatWasNotOfferedFailsClosed() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}")));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call.withToolName("delete_everything");
			String reply = ask(context, hooks, "Look up A1");
			assertThat(reply).isEqualTo(TOOL_ERROR);
			assertThat(hooks.events).containsExactly("preflight:lookup");
		});
	}

	@Test
	void metadataThatIsNotJsonFailsClosed() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}")));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call.withMetadata(Map.of("handle", new NotJson()));
			String reply = ask(context, hooks, "Look up A1");
			assertThat(reply).isEqualTo(TOOL_ERROR);
			assertThat(hooks.events).containsExactly("preflight:lookup");
		});
	}

	@Test
	void resultRewriteIsWhatTheModelSeesNext() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\",\"ssn\":\"123\"}")),
				Reply.text("Found it."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.result = (result) -> result.withValue("redacted").withArguments(Map.of("id", "A1"));
			ask(context, hooks, "Look up A1");
			assertThat(this.openAi.messages(1)).containsExactly("user: Look up A1",
					"assistant: [lookup({\"id\":\"A1\"})]", "tool: redacted");
		});
	}

	@Test
	void crashingResultHookKeepsTheOriginalResult() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}")), Reply.text("Found."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.result = (result) -> {
				throw new IllegalStateException("redactor down");
			};
			ask(context, hooks, "Look up A1");
			assertThat(this.openAi.messages(1)).containsExactly("user: Look up A1",
					"assistant: [lookup({\"id\":\"A1\"})]", "tool: \"A1 found\"");
		});
	}

	@Test
	void throwingToolYieldsAnErrorResultTheHooksSee() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "explode", "{}")), Reply.text("That failed."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			String reply = ask(context, hooks, "Explode");
			assertThat(reply).isEqualTo("That failed.");
			assertThat(hooks.events)
				.anySatisfy((event) -> assertThat(event).startsWith("result:explode=").endsWith("(error)"));
		});
	}

	@Test
	void toolCallModifierBuffersStreaming() {
		this.openAi.reply(Reply.textAndToolCalls("Checking. ", new ToolCall("call_1", "refund", "{\"id\":\"A1\"}")),
				Reply.text("Please confirm first."));
		this.withToolHooks.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> {
				throw new RetryModel("Confirm first.");
			};
			List<String> chunks = chatClient(context).prompt()
				.user("Refund A1")
				.tools(new ShopTools(hooks.events))
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(chunks).containsExactly("Please confirm first.");
			assertThat(hooks.events).containsExactly("preflight:refund");
		});
	}

	private void assertFailsClosed(AssertableApplicationContext context, ToolHooks hooks) {
		ChatClientResponse response = chatClient(context).prompt()
			.user("Refund A1")
			.tools(new ShopTools(hooks.events))
			.call()
			.chatClientResponse();
		assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo(TOOL_ERROR);
		assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
		assertThat(hooks.events).containsExactly("preflight:lookup", "preflight:refund");
		assertThat(this.openAi.requests()).hasSize(1);
	}

	/** Wait until released, stopping when interrupted (the flag stays set). */
	private static void hang(CountDownLatch release) {
		try {
			release.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A call turn with the shop tools, answering with the reply text.
	 */
	private static String ask(AssertableApplicationContext context, ToolHooks hooks, String text) {
		return chatClient(context).prompt().user(text).tools(new ShopTools(hooks.events)).call().content();
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	/**
	 * A value Jackson cannot write: its only property throws.
	 */
	public static class NotJson {

		public String getValue() {
			throw new IllegalStateException("not serializable");
		}

	}

	static class ShopTools {

		private final List<String> events;

		ShopTools(List<String> events) {
			this.events = events;
		}

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			this.events.add("run:lookup " + id);
			return id + " found";
		}

		@Tool(name = "refund", description = "Refund an order")
		String refund(String id) {
			this.events.add("run:refund " + id);
			return id + " refunded";
		}

		@Tool(name = "explode", description = "Always fails")
		String explode() {
			throw new IllegalStateException("kaboom");
		}

	}

}
