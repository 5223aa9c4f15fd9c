package io.mantlehooks.ai;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.ai.ToolTurnTests.ShopTools;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
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
 * A tool-call hook refuses one call of a batch ({@code withRefusal}): that call does not
 * run and asks for no approval, the model reads the refusal as that call's error result
 * in its place, the tool-result hooks see it like a failed tool's result, and every other
 * call runs. A refusal the model could not read, or a refusing hook that fails, closes
 * the whole batch.
 */
class ToolRefusalTests {

	private static final String TOOL_ERROR = "Sorry, I couldn't complete that action. Please try again.";

	private static final String REFUSAL = "Refunds above 1000 EUR need a manager";

	private static final String UNREADABLE_ARGUMENTS = "The tool was not called: its arguments were not one JSON "
			+ "object. Call it again with its parameters as one JSON object.";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("toolHooks", ToolHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void refusedMiddleCallDoesNotRunAndTheModelReadsTheRefusalInItsPlace() {
		this.openAi.reply(threeCalls(), Reply.text("A1 and C3 are fine; B2 needs a manager."));
		this.contextRunner.run((context) -> {
			ToolHooks hooks = refusingRefunds(context);
			String reply = ask(context, hooks, "Check A1, refund B2, check C3");
			assertThat(reply).isEqualTo("A1 and C3 are fine; B2 needs a manager.");
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:"))
				.containsExactly("run:lookup A1", "run:lookup C3");
			assertThat(this.openAi.messages(1)).containsExactly("user: Check A1, refund B2, check C3",
					"assistant: [lookup({\"id\":\"A1\"}), refund({\"id\":\"B2\"}), lookup({\"id\":\"C3\"})]",
					"tool: \"A1 found\"", "tool: " + REFUSAL, "tool: \"C3 found\"");
			assertThat(toolCallIds(1)).containsExactly("call_1", "call_2", "call_3");
			assertResultHooksSawTheRefusalAsAnError(hooks);
		});
	}

	@Test
	void refusedMiddleCallInAStreamedTurn() {
		this.openAi.reply(threeCalls(), Reply.text("B2 needs a manager."));
		this.contextRunner.run((context) -> {
			ToolHooks hooks = refusingRefunds(context);
			List<String> chunks = chatClient(context).prompt()
				.user("Check A1, refund B2, check C3")
				.tools(new ShopTools(hooks.events))
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", chunks)).isEqualTo("B2 needs a manager.");
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:"))
				.containsExactly("run:lookup A1", "run:lookup C3");
			assertThat(this.openAi.messages(1)).containsSubsequence("tool: \"A1 found\"", "tool: " + REFUSAL,
					"tool: \"C3 found\"");
			assertResultHooksSawTheRefusalAsAnError(hooks);
		});
	}

	@Test
	void aResultHookMayRewriteWhatTheModelReadsForARefusedCall() {
		this.openAi.reply(threeCalls(), Reply.text("Done."));
		this.contextRunner.run((context) -> {
			ToolHooks hooks = refusingRefunds(context);
			hooks.result = (result) -> result.isError() ? result.withValue("{\"refused\":\"" + result.value() + "\"}")
					: result;
			ask(context, hooks, "Check A1, refund B2, check C3");
			assertThat(this.openAi.messages(1)).containsSubsequence("tool: \"A1 found\"",
					"tool: {\"refused\":\"" + REFUSAL + "\"}", "tool: \"C3 found\"");
		});
	}

	@Test
	void aBatchWhoseEveryCallIsRefusedRunsNothingAndTheModelReadsEachRefusal() {
		this.openAi.reply(
				Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"A1\"}"),
						new ToolCall("call_2", "refund", "{\"id\":\"B2\"}")),
				Reply.text("Neither can be refunded here."));
		this.contextRunner.run((context) -> {
			ToolHooks hooks = refusingRefunds(context);
			String reply = ask(context, hooks, "Refund A1 and B2");
			assertThat(reply).isEqualTo("Neither can be refunded here.");
			assertThat(hooks.events).noneMatch((event) -> event.startsWith("run:"));
			assertThat(this.openAi.messages(1)).endsWith("tool: " + REFUSAL, "tool: " + REFUSAL);
		});
	}

	@Test
	void aRefusedCallOfAToolThatNeedsApprovalAsksForNone() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"A1\"}")), Reply.text("A1 needs a manager."));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund").run((context) -> {
			ToolHooks hooks = refusingRefunds(context);
			ChatClientResponse response = respond(context, hooks, "Refund A1");
			assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo("A1 needs a manager.");
			assertNeitherPausedNorDecided(response);
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:")).containsExactly("run:lookup A1");
			assertThat(this.openAi.messages(1)).endsWith("tool: \"A1 found\"", "tool: " + REFUSAL);
		});
	}

	@Test
	void aCallWhoseArgumentsNoHookCouldReadIsRefusedAndAsksForNoApproval() {
		this.openAi.reply(
				Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"A1\"} {\"id\":\"Z9\"}"),
						new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")),
				Reply.text("B2 is found; A1 is not refunded."));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund").run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			ChatClientResponse response = respond(context, hooks, "Refund A1, look up B2");
			assertThat(response.chatResponse().getResult().getOutput().getText())
				.isEqualTo("B2 is found; A1 is not refunded.");
			assertNeitherPausedNorDecided(response);
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:")).containsExactly("run:lookup B2");
			assertThat(this.openAi.messages(1)).endsWith("tool: " + UNREADABLE_ARGUMENTS, "tool: \"B2 found\"");
		});
	}

	@Test
	void aPausedBatchKeepsItsRefusalAndTheQuestionNamesOnlyTheCallsThatRun() {
		this.openAi.reply(
				Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"A1\"}"),
						new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")),
				Reply.text("A1 is refunded; B2 cannot be looked up."));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund").run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call.toolName().equals("lookup") ? call.withRefusal("Lookups are closed today")
					: call;
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClientResponse paused = turn(context, hooks, memory, "Refund A1, look up B2", (spec) -> {
			});
			assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval");
			assertThat(paused.chatResponse().getResult().getOutput().getText())
				.isEqualTo("I need your approval before I run:\nrefund {\"id\":\"A1\"}");
			List<ApprovalCall> runIfApproved = List.of(new ApprovalCall("refund", "{\"id\":\"A1\"}"));
			assertThat(paused.context()).containsEntry(MantleHooks.APPROVAL_CALLS, runIfApproved);
			String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);
			assertThat(context.getBean(ApprovalStore.class).find(approvalId, Instant.now()))
				.hasValueSatisfying((pending) -> assertThat(pending.calls()).isEqualTo(runIfApproved));
			String answer = turn(context, hooks, memory, "Yes", MantleHooks.approve(approvalId)).chatResponse()
				.getResult()
				.getOutput()
				.getText();
			assertThat(answer).isEqualTo("A1 is refunded; B2 cannot be looked up.");
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:")).containsExactly("run:refund A1");
			assertThat(this.openAi.messages(1)).endsWith("tool: \"A1 refunded\"", "tool: Lookups are closed today");
		});
	}

	@Test
	void aDeclinedBatchStillGivesTheModelTheRefusalOfItsRefusedCall() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")), Reply.text("Nothing done."));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund").run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call.toolName().equals("lookup") ? call.withRefusal("Lookups are closed today")
					: call;
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			String approvalId = (String) turn(context, hooks, memory, "Refund A1, look up B2", (spec) -> {
			}).context().get(MantleHooks.APPROVAL_ID);
			turn(context, hooks, memory, "No", MantleHooks.deny(approvalId, "changed my mind"));
			assertThat(hooks.events).noneMatch((event) -> event.startsWith("run:"));
			List<String> messages = this.openAi.messages(1);
			assertThat(messages.get(messages.size() - 2)).startsWith("tool: {\"declined\":true");
			assertThat(messages.get(messages.size() - 1)).isEqualTo("tool: Lookups are closed today");
		});
	}

	@Test
	void aBatchOfDirectToolsWithARefusalGoesBackToTheModel() {
		this.openAi.reply(
				Reply.toolCalls(new ToolCall("call_1", "quote", "{\"id\":\"A1\"}"),
						new ToolCall("call_2", "quote", "{\"id\":\"B2\"}")),
				Reply.text("A1 costs 10; B2 is not for sale."));
		this.contextRunner.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> "B2".equals(call.arguments().get("id")) ? call.withRefusal("B2 is not for sale")
					: call;
			String reply = chatClient(context).prompt()
				.user("Quote A1 and B2")
				.tools(new DirectTools(hooks.events))
				.call()
				.content();
			// without the refusal the quotes would be the answer (returnDirect); the
			// model
			// must read the refusal
			assertThat(reply).isEqualTo("A1 costs 10; B2 is not for sale.");
			assertThat(hooks.events).filteredOn((event) -> event.startsWith("run:")).containsExactly("run:quote A1");
			assertThat(this.openAi.messages(1)).endsWith("tool: \"A1: 10\"", "tool: B2 is not for sale");
		});
	}

	@Test
	void aRefusalLongerThanTwoThousandCharactersFailsClosed() {
		this.openAi.reply(threeCalls());
		this.contextRunner.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call.toolName().equals("refund") ? call.withRefusal("x".repeat(2_001)) : call;
			assertFailsClosed(context, hooks);
		});
	}

	@Test
	void aBlankRefusalFailsClosed() {
		this.openAi.reply(threeCalls());
		this.contextRunner.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> call.toolName().equals("refund") ? call.withRefusal("  ") : call;
			assertFailsClosed(context, hooks);
		});
	}

	@Test
	void aRefusalOfExactlyTwoThousandCharactersIsRead() {
		this.openAi.reply(threeCalls(), Reply.text("Done."));
		this.contextRunner.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			String longest = "y".repeat(2_000);
			hooks.call = (call) -> call.toolName().equals("refund") ? call.withRefusal(longest) : call;
			assertThat(ask(context, hooks, "Check A1, refund B2, check C3")).isEqualTo("Done.");
			assertThat(this.openAi.messages(1)).contains("tool: " + longest);
		});
	}

	@Test
	void aRefusingHookThatCrashesOnALaterCallFailsTheWholeBatchClosed() {
		this.openAi.reply(threeCalls());
		this.contextRunner.run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> {
				if (call.toolName().equals("refund")) {
					return call.withRefusal(REFUSAL);
				}
				if ("C3".equals(call.arguments().get("id"))) {
					throw new IllegalStateException("limits service down at 10.0.0.7");
				}
				return call;
			};
			assertFailsClosed(context, hooks);
		});
	}

	@Test
	void aRefusingHookThatTimesOutOnALaterCallFailsTheWholeBatchClosed() {
		this.openAi.reply(threeCalls());
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook[toolHooks.preflight]=5s").run((context) -> {
			ToolHooks hooks = context.getBean(ToolHooks.class);
			hooks.call = (call) -> {
				if (call.toolName().equals("refund")) {
					return call.withRefusal(REFUSAL);
				}
				if ("C3".equals(call.arguments().get("id"))) {
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
	void theRefusingInvocationProceedsAndIsMarkedRefusedOnItsObservation() {
		List<HookObservationContext> observed = new CopyOnWriteArrayList<>();
		this.openAi.reply(threeCalls(), Reply.text("Done."));
		this.contextRunner.withBean("observationRegistry", ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new HookContexts(observed));
			return registry;
		}).run((context) -> {
			ToolHooks hooks = refusingRefunds(context);
			ask(context, hooks, "Check A1, refund B2, check C3");
			await().atMost(Duration.ofSeconds(60))
				.until(() -> observed.stream()
					.filter((hook) -> hook.getHookName().equals("toolHooks.preflight"))
					.count() == 3);
			List<String> preflights = observed.stream()
				.filter((hook) -> hook.getHookName().equals("toolHooks.preflight"))
				.map((hook) -> hook.getOutcome() + " refused="
						+ hook.getLowCardinalityKeyValue("mantle.tool.refused").getValue())
				.toList();
			assertThat(preflights).containsExactlyInAnyOrder("proceeded refused=false", "proceeded refused=true",
					"proceeded refused=false");
			assertThat(observed).filteredOn((hook) -> !hook.getHookName().equals("toolHooks.preflight"))
				.allSatisfy((hook) -> assertThat(hook.getLowCardinalityKeyValue("mantle.tool.refused").getValue())
					.isEqualTo("false"));
		});
	}

	private static Reply threeCalls() {
		return Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"B2\"}"),
				new ToolCall("call_3", "lookup", "{\"id\":\"C3\"}"));
	}

	private static ToolHooks refusingRefunds(AssertableApplicationContext context) {
		ToolHooks hooks = context.getBean(ToolHooks.class);
		hooks.call = (call) -> call.toolName().equals("refund") ? call.withRefusal(REFUSAL) : call;
		return hooks;
	}

	private static void assertResultHooksSawTheRefusalAsAnError(ToolHooks hooks) {
		assertThat(hooks.events).contains("result:refund=" + REFUSAL + " (error)", "result:lookup=\"A1 found\"",
				"result:lookup=\"C3 found\"");
		await().atMost(Duration.ofSeconds(60)).until(() -> hooks.observedResults.size() == 3);
		ToolResultPayload refused = hooks.observedResults.stream()
			.filter((result) -> result.toolName().equals("refund"))
			.findFirst()
			.orElseThrow();
		assertThat(refused.isError()).isTrue();
		assertThat(refused.value()).isEqualTo(REFUSAL);
	}

	private void assertFailsClosed(AssertableApplicationContext context, ToolHooks hooks) {
		ChatClientResponse response = respond(context, hooks, "Check A1, refund B2, check C3");
		assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo(TOOL_ERROR);
		assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
		assertThat(hooks.events).noneMatch((event) -> event.startsWith("run:"));
		assertThat(this.openAi.requests()).hasSize(1);
	}

	/**
	 * The ids of the tool results the model got in one request, in order.
	 */
	@SuppressWarnings("unchecked")
	private List<String> toolCallIds(int request) {
		return ((List<Map<String, Object>>) this.openAi.requests().get(request).get("messages")).stream()
			.filter((message) -> "tool".equals(message.get("role")))
			.map((message) -> (String) message.get("tool_call_id"))
			.toList();
	}

	private static String ask(AssertableApplicationContext context, ToolHooks hooks, String text) {
		return respond(context, hooks, text).chatResponse().getResult().getOutput().getText();
	}

	private static ChatClientResponse respond(AssertableApplicationContext context, ToolHooks hooks, String text) {
		return chatClient(context).prompt().user(text).tools(new ShopTools(hooks.events)).call().chatClientResponse();
	}

	/**
	 * The turn ended with the model's answer: no approval asked for, no outcome of the
	 * engine's.
	 */
	private static void assertNeitherPausedNorDecided(ChatClientResponse response) {
		assertThat(response.context()).doesNotContainKey(MantleHooks.APPROVAL_ID)
			.doesNotContainKey(MantleHooks.OUTCOME);
	}

	private static ChatClientResponse turn(AssertableApplicationContext context, ToolHooks hooks, ChatMemory memory,
			String text, Consumer<ChatClient.AdvisorSpec> params) {
		return chatClient(context).prompt()
			.user(text)
			.tools(new ShopTools(hooks.events))
			.advisors(ChatTestSupport.memory(memory, "c1"))
			.advisors(params)
			.call()
			.chatClientResponse();
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
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

	static class DirectTools {

		private final List<String> events;

		DirectTools(List<String> events) {
			this.events = events;
		}

		@Tool(name = "quote", description = "Quote a price", returnDirect = true)
		String quote(String id) {
			this.events.add("run:quote " + id);
			return id + ": 10";
		}

	}

	/**
	 * Keeps the context of every stopped {@code mantle.hook} observation, with the keys
	 * its convention gave it.
	 */
	private record HookContexts(
			List<HookObservationContext> stopped) implements ObservationHandler<Observation.Context> {

		@Override
		public void onStop(Observation.Context context) {
			if (context instanceof HookObservationContext hook) {
				this.stopped.add(hook);
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
