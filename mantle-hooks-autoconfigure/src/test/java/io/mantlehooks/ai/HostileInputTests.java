package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.PayloadTooDeepException;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.annotation.OnToolResult;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Input that should not be trusted, from clients and hooks: engine-owned keys passed as
 * params, identity nested too deep, model settings a provider would choke on, a tool
 * renamed to one that was not offered, tool-call arguments a hook could not read, and
 * very large tool-call batches.
 */
@ExtendWith(OutputCaptureExtension.class)
class HostileInputTests {

	private static final String TOOL_ERROR = "Sorry, I couldn't complete that action. Please try again.";

	private static final String UNREADABLE = "The tool was not called: its arguments were not one JSON object. "
			+ "Call it again with its parameters as one JSON object.";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void clientSuppliedOutcomeKeysNeverComeBackAsTheEngines() {
		this.openAi.reply(Reply.text("Hello."), Reply.text("Hello again."));
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			ChatClientResponse called = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Hi")
				.advisors((spec) -> spec.param(MantleHooks.OUTCOME, "rejected")
					.param(MantleHooks.REASON, "spoofed")
					.param(MantleHooks.TURN_ID, "spoofed-turn"))
				.call()
				.chatClientResponse();
			assertThat(called.context()).doesNotContainKeys(MantleHooks.OUTCOME, MantleHooks.REASON);
			assertThat(called.context().get(MantleHooks.TURN_ID)).isNotEqualTo("spoofed-turn");
			List<ChatClientResponse> streamed = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Hi")
				.advisors((spec) -> spec.param(MantleHooks.OUTCOME, "rejected").param(MantleHooks.REASON, "spoofed"))
				.stream()
				.chatClientResponse()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(streamed).isNotEmpty()
				.allSatisfy((chunk) -> assertThat(chunk.context()).doesNotContainKeys(MantleHooks.OUTCOME,
						MantleHooks.REASON));
		});
	}

	@Test
	void identityNestedTooDeepFailsTheTurnBeforeItStarts() {
		this.contextRunner.withBean("recordingObservers", RecordingObservers.class).run((context) -> {
			Map<String, Object> deep = FaultyHooks.deep();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> MantleHooks.identity("user-1", Channel.of("web"), deep))
				.isInstanceOf(PayloadTooDeepException.class);
			assertThatExceptionOfType(PayloadTooDeepException.class)
				.isThrownBy(() -> ChatTestSupport.chatClient(context)
					.prompt()
					.user("Hi")
					.advisors((spec) -> spec.param(MantleHooks.CALL, deep))
					.call()
					.content());
			// a streamed turn ends with the error, it does not hang
			assertThatExceptionOfType(PayloadTooDeepException.class)
				.isThrownBy(() -> ChatTestSupport.chatClient(context)
					.prompt()
					.user("Hi")
					.advisors((spec) -> spec.param(MantleHooks.CALL, deep))
					.stream()
					.content()
					.blockLast(Duration.ofSeconds(60)));
			assertThat(this.openAi.requests()).isEmpty();
			assertThat(context.getBean(RecordingObservers.class).seen).isEmpty();
		});
	}

	@Test
	void modelSettingsOutOfRangeAreAnInvalidReturnNamingTheField(CapturedOutput output) {
		this.contextRunner.withBean("badSettingsHook", BadSettingsHook.class).run((context) -> {
			BadSettingsHook hook = context.getBean(BadSettingsHook.class);
			for (; hook.next < 3; hook.next++) {
				ChatClientResponse response = ChatTestSupport.chatClient(context)
					.prompt()
					.user("Hi")
					.call()
					.chatClientResponse();
				assertThat(response.chatResponse().getResult().getOutput().getText())
					.isEqualTo("Sorry, something went wrong on our side. Please try again.");
				assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			}
			assertThat(this.openAi.requests()).isEmpty();
		});
		assertThat(output).contains("returned model setting temperature=NaN")
			.contains("returned model setting maxTokens=-5")
			.contains("returned model setting topP=Infinity");
	}

	@Test
	void responseHookRenamingACallToAToolNotOfferedFailsClosedWithoutToolHooks() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}")));
		this.contextRunner.withBean("renamingHook", RenamingHook.class).run((context) -> {
			BatchTools tools = new BatchTools();
			ChatClientResponse response = lookUpA1(context, tools);
			assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo(TOOL_ERROR);
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(tools.calls).isEmpty();
			assertThat(this.openAi.requests()).hasSize(1);
		});
	}

	@Test
	void largeBatchRunsEveryCallOnceThroughItsHooks() {
		int size = 2_000;
		List<ToolCall> calls = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			calls.add(new ToolCall("call_" + i, "lookup", "{\"id\":\"" + i + "\"}"));
		}
		this.openAi.reply(Reply.toolCalls(calls.toArray(ToolCall[]::new)), Reply.text("All found."));
		this.contextRunner.withBean("batchHooks", BatchHooks.class)
			.withPropertyValues("spring.ai.tools.limits.max-calls-per-tool-default=100000",
					"spring.ai.tools.limits.max-total-tool-calls=100000")
			.run((context) -> {
				BatchTools tools = new BatchTools();
				String reply = ChatTestSupport.chatClient(context)
					.prompt()
					.user("Look them all up")
					.tools(tools)
					.call()
					.content();
				assertThat(reply).isEqualTo("All found.");
				assertThat(tools.calls).hasSize(size).startsWith("N0", "N1").endsWith("N" + (size - 1));
				BatchHooks hooks = context.getBean(BatchHooks.class);
				assertThat(hooks.preflights).hasSize(size);
				List<String> replayed = this.openAi.messages(1);
				assertThat(replayed).hasSize(2 + size);
				assertThat(replayed.get(2)).isEqualTo("tool: \"N0 found\"");
				assertThat(replayed.get(1 + size)).isEqualTo("tool: \"N" + (size - 1) + " found\"");
			});
	}

	@Test
	void modelArgumentsNestedTooDeepForAPayloadEndTheTurnWithoutRunningTheTool() {
		String deep = "{\"id\":\"A1\",\"x\":" + "{\"k\":".repeat(100) + "1" + "}".repeat(100) + "}";
		// with tool-call hooks, with only a tool-result hook, and with only approvals on
		List<ApplicationContextRunner> runners = List.of(this.contextRunner.withBean("batchHooks", BatchHooks.class),
				this.contextRunner.withBean("resultHook", ResultHook.class),
				this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund"));
		for (ApplicationContextRunner runner : runners) {
			this.openAi.clear();
			this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", deep)), Reply.text("Done."));
			runner.run((context) -> {
				BatchTools tools = new BatchTools();
				ChatClientResponse response = lookUpA1(context, tools);
				assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo(TOOL_ERROR);
				assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error")
					.doesNotContainKey(MantleHooks.APPROVAL_ID);
				assertThat(tools.calls).isEmpty();
				assertThat(this.openAi.requests()).hasSize(1);
			});
		}
	}

	@Test
	void modelArgumentsThatAreNotOneJsonObjectAreRefusedAndOnlyTheReadableCallRuns() {
		List<String> unreadable = List.of("[{\"id\":\"A1\"}]", "\"A1\"", "{\"id\":\"A1\"",
				"{\"id\":\"A1\"} {\"id\":\"Z9\"}", "[".repeat(10_000) + "]".repeat(10_000));
		String refused = "tool: " + UNREADABLE;
		// with tool-call hooks, with only a tool-result hook, with only approvals on, and
		// with only a model-response observer (which saw no arguments either)
		List<ApplicationContextRunner> runners = List.of(
				this.contextRunner.withBean("argumentHooks", ArgumentHooks.class),
				this.contextRunner.withBean("resultHook", ResultHook.class),
				this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund"),
				this.contextRunner.withBean("responseObserver", ResponseObserver.class));
		for (ApplicationContextRunner runner : runners) {
			this.openAi.clear();
			this.openAi.reply(Reply.toolCalls(unreadableThenB2(unreadable)), Reply.text("Only B2 was found."));
			runner.run((context) -> {
				BatchTools tools = new BatchTools();
				ChatClientResponse response = lookUpA1(context, tools);
				assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo("Only B2 was found.");
				assertThat(response.context()).doesNotContainKey(MantleHooks.OUTCOME)
					.doesNotContainKey(MantleHooks.APPROVAL_ID);
				assertThat(tools.calls).containsExactly("B2");
				assertThat(this.openAi.messages(1)).endsWith(refused, refused, refused, refused, refused,
						"tool: \"B2 found\"");
				// the refused calls are replayed with no arguments: a provider's adapter
				// that
				// parses them (Anthropic's does) could fail on the model's text
				assertThat(this.openAi.messages(1)).contains(
						"assistant: [lookup({}), lookup({}), lookup({}), lookup({}), lookup({}), lookup({\"id\":\"B2\"})]");
				ArgumentHooks hooks = context.getBeanProvider(ArgumentHooks.class).getIfAvailable();
				if (hooks != null) {
					assertThat(hooks.arguments).containsExactly(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(),
							Map.of("id", "B2"));
					// the result hooks see each refusal as a failed tool's result, once
					// the calls that run are done
					assertThat(hooks.results).containsExactlyInAnyOrder("error: " + UNREADABLE, "error: " + UNREADABLE,
							"error: " + UNREADABLE, "error: " + UNREADABLE, "error: " + UNREADABLE, "ok: \"B2 found\"");
				}
			});
		}
	}

	@Test
	void modelArgumentsThatAreNotOneJsonObjectAreRefusedInAStreamedTurnToo() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "[\"A1\"]"),
				new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")), Reply.text("Only B2 was found."));
		this.contextRunner.withBean("argumentHooks", ArgumentHooks.class).run((context) -> {
			BatchTools tools = new BatchTools();
			List<String> chunks = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Look up A1 and B2")
				.tools(tools)
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", chunks)).isEqualTo("Only B2 was found.");
			assertThat(tools.calls).containsExactly("B2");
			assertThat(this.openAi.messages(1)).endsWith("tool: " + UNREADABLE, "tool: \"B2 found\"");
			assertThat(this.openAi.messages(1)).contains("assistant: [lookup({}), lookup({\"id\":\"B2\"})]");
		});
	}

	@Test
	void aCallAHookRefusedIsReplayedWithoutArgumentsItsModelCouldNotWrite() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "[\"A1\"]"),
				new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")), Reply.text("Only B2 was found."));
		this.contextRunner.withBean("refusingHook", RefusingHook.class).run((context) -> {
			BatchTools tools = new BatchTools();
			assertThat(lookUpA1(context, tools).chatResponse().getResult().getOutput().getText())
				.isEqualTo("Only B2 was found.");
			assertThat(tools.calls).containsExactly("B2");
			assertThat(this.openAi.messages(1)).containsExactly("user: Look up A1",
					"assistant: [lookup({}), lookup({\"id\":\"B2\"})]", "tool: No lookups without an id.",
					"tool: \"B2 found\"");
		});
	}

	@Test
	void aToolCallHookMayGiveUnreadableArgumentsItsOwnAndThenTheToolRunsWithThem() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "[\"A1\"]"),
				new ToolCall("call_2", "lookup", "{\"id\":\"B2\"}")), Reply.text("Both found."));
		this.contextRunner.withBean("repairingHook", RepairingHook.class).run((context) -> {
			BatchTools tools = new BatchTools();
			assertThat(lookUpA1(context, tools).chatResponse().getResult().getOutput().getText())
				.isEqualTo("Both found.");
			assertThat(tools.calls).containsExactly("A1", "B2");
			assertThat(this.openAi.messages(1)).endsWith("tool: \"A1 found\"", "tool: \"B2 found\"");
		});
	}

	private static ToolCall[] unreadableThenB2(List<String> unreadable) {
		List<ToolCall> calls = new ArrayList<>();
		for (String arguments : unreadable) {
			calls.add(new ToolCall("call_" + calls.size(), "lookup", arguments));
		}
		calls.add(new ToolCall("call_" + calls.size(), "lookup", "{\"id\":\"B2\"}"));
		return calls.toArray(ToolCall[]::new);
	}

	private static ChatClientResponse lookUpA1(AssertableApplicationContext context, BatchTools tools) {
		return ChatTestSupport.chatClient(context).prompt().user("Look up A1").tools(tools).call().chatClientResponse();
	}

	static class ResultHook {

		@OnToolResult
		void audit(ToolResultPayload result) {
		}

	}

	static class ArgumentHooks {

		final List<Map<String, Object>> arguments = new CopyOnWriteArrayList<>();

		final List<String> results = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload preflight(ToolCallPayload call) {
			this.arguments.add(call.arguments());
			return call;
		}

		@OnToolResult
		void audit(ToolResultPayload result) {
			this.results.add((result.isError() ? "error: " : "ok: ") + result.value());
		}

	}

	static class ResponseObserver {

		@OnModelResponse
		void audit(ModelResponsePayload response) {
		}

	}

	static class RepairingHook {

		@ModifyToolCall
		ToolCallPayload repair(ToolCallPayload call) {
			return call.arguments().isEmpty() ? call.withArguments(Map.of("id", "A1")) : call;
		}

	}

	static class RefusingHook {

		@ModifyToolCall
		ToolCallPayload refuse(ToolCallPayload call) {
			return call.arguments().isEmpty() ? call.withRefusal("No lookups without an id.") : call;
		}

	}

	static class BadSettingsHook {

		volatile int next;

		@ModifyModelRequest
		ModelRequestPayload settings(ModelRequestPayload request) {
			return switch (this.next) {
				case 0 -> request.withModelSettings(request.modelSettings().withTemperature(Double.NaN));
				case 1 -> request.withModelSettings(request.modelSettings().withMaxTokens(-5));
				default -> request.withModelSettings(request.modelSettings().withTopP(Double.POSITIVE_INFINITY));
			};
		}

	}

	static class RenamingHook {

		@ModifyModelResponse
		ModelResponsePayload rename(ModelResponsePayload response) {
			return response.withToolCalls(response.toolCalls()
				.stream()
				.map((call) -> new ModelToolCall(call.id(), "delete_everything", call.toolArgs(), call.type()))
				.toList());
		}

	}

	static class BatchHooks {

		final List<String> preflights = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload preflight(ToolCallPayload call) {
			this.preflights.add(call.arguments().get("id").toString());
			return call.withArguments(Map.of("id", "N" + call.arguments().get("id")));
		}

		@OnToolResult
		void audit(ToolResultPayload result) {
		}

	}

	static class BatchTools {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			this.calls.add(id);
			return id + " found";
		}

	}

}
