package io.mantlehooks.ai;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.mantlehooks.Channel;
import io.mantlehooks.HookRejection;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.OnToolResult;
import io.mantlehooks.approval.ApprovalAuthorizer;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.approval.ToolApprovalPolicy;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tool calls that wait for a person: the batch pauses after preflight with nothing run,
 * the user is asked, and a later turn approves (the stored calls run as stored, without
 * the tool-call hooks) or declines it; anything else finds nothing and runs nothing.
 */
@ExtendWith(OutputCaptureExtension.class)
class ApprovalTests {

	private static final String CONVERSATION = "conversation-1";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withPropertyValues("mantle.hooks.approvals.tools=refund")
		.withBean("approvalHooks", ApprovalHooks.class);

	private final ChatMemory memory = MessageWindowChatMemory.builder().build();

	private final ShopTools tools = new ShopTools();

	private final Payments payments = new Payments();

	/** Refunds with amounts, no tool-call hooks: calls as the model sent them. */
	private final ApplicationContextRunner paymentsRunner = ChatTestSupport.contextRunner(this.openAi)
		.withPropertyValues("mantle.hooks.approvals.tools=refund");

	@AfterEach
	void stop() {
		this.openAi.close();
	}

	@Test
	void aCallThatNeedsApprovalPausesTheBatchAndAsksTheUser() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"42\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"42\"}")));
		this.contextRunner.run((context) -> {
			ChatClientResponse paused = turn(context, "Refund order 42");
			assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval")
				.containsKey(MantleHooks.APPROVAL_ID);
			// the question names every call of the batch as the tool-call hook left it
			assertThat(text(paused)).isEqualTo(
					"I need your approval before I run:\nlookup {\"id\":\"42-checked\"}\nrefund {\"id\":\"42-checked\"}");
			assertThat(this.tools.calls).as("no tool of the batch ran").isEmpty();
			assertThat(this.openAi.requests()).hasSize(1);
			assertThat(context.getBean(ApprovalHooks.class).preflights).containsExactly("lookup", "refund");
		});
	}

	@Test
	void approvalRunsTheStoredCallsWithoutTheToolCallHooksAndTheModelAnswers() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"42\"}"),
				new ToolCall("call_2", "refund", "{\"id\":\"42\"}")), Reply.text("Order 42 is refunded."));
		this.contextRunner.run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
			ApprovalHooks hooks = context.getBean(ApprovalHooks.class);
			hooks.preflights.clear();
			ChatClientResponse answered = approve(context, approvalId);
			assertThat(text(answered)).isEqualTo("Order 42 is refunded.");
			assertThat(answered.context()).doesNotContainKey(MantleHooks.OUTCOME)
				.doesNotContainKey(MantleHooks.APPROVAL_ID);
			assertThat(this.tools.calls).containsExactly("lookup 42-checked", "refund 42-checked");
			assertThat(hooks.preflights).as("tool-call hooks do not run again").isEmpty();
			// tool-result observers run off the critical path, in no fixed order
			await().atMost(Duration.ofSeconds(60)).until(() -> hooks.results.size() == 2);
			assertThat(hooks.results).containsExactlyInAnyOrder("lookup", "refund");
			// the model continues the paused exchange: its calls, then their results
			assertThat(this.openAi.messages(1)).containsExactly("user: Refund order 42",
					"assistant: [lookup({\"id\":\"42-checked\"}), refund({\"id\":\"42-checked\"})]",
					"tool: \"42-checked found\"", "tool: \"42-checked refunded\"");
		});
	}

	@Test
	void onlyATurnOfTheAgentThatPausedTheBatchMayDecideIt(CapturedOutput output) {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")),
				Reply.text("Order 42 is refunded."));
		this.contextRunner.run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42", MantleHooks.agent("support")).context()
				.get(MantleHooks.APPROVAL_ID);
			assertThat(context.getBean(ApprovalStore.class).find(approvalId, Instant.now()))
				.hasValueSatisfying((pending) -> assertThat(pending.agent()).isEqualTo("support"));
			// a client of another agent would run other hooks on the results: refused,
			// and the batch keeps waiting
			ChatClientResponse wrongAgent = approve(context, approvalId);
			assertThat(wrongAgent.context()).containsEntry(MantleHooks.OUTCOME, "approval_not_allowed");
			assertThat(this.tools.calls).isEmpty();
			ChatClientResponse answered = turn(context, "Yes, go ahead",
					MantleHooks.approve(approvalId).andThen(MantleHooks.agent("support")));
			assertThat(text(answered)).isEqualTo("Order 42 is refunded.");
			assertThat(answered.context()).containsEntry(MantleHooks.AGENT, "support");
			assertThat(this.tools.calls).containsExactly("refund 42-checked");
		});
		assertThat(output).contains("agent 'support' paused it, and this is a turn of agent 'default'");
	}

	@Test
	void aStoreThatFailsRunsNothingAndTellsTheUserPlainly(CapturedOutput output) {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")));
		this.contextRunner.withBean(ApprovalStore.class, BrokenStore::new).run((context) -> {
			// the batch cannot be kept: nothing runs and no approval is asked for
			ChatClientResponse paused = turn(context, "Refund order 42");
			assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "hook_error")
				.doesNotContainKey(MantleHooks.APPROVAL_ID);
			assertThat(text(paused)).isEqualTo("Sorry, I couldn't complete that action. Please try again.");
			// nor can one be claimed: the user is told to try again, not that it is gone
			ChatClientResponse approved = approve(context, "any-id");
			assertThat(approved.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(text(approved)).isEqualTo("Sorry, I couldn't complete that action. Please try again.");
			assertThat(this.tools.calls).isEmpty();
		});
		assertThat(output).contains("Could not store a tool-call batch for approval")
			.contains("Could not claim the batch 'any-id'")
			.contains("approvals table is gone");
	}

	@Test
	void aReasonIsShortTextOrNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> MantleHooks.deny("a-1", "x".repeat(1_001)))
			.withMessage("'reason' must be at most 1000 characters (was 1001)");
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")), Reply.text("Alright."));
		this.contextRunner.run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
			// set directly, past deny(): a structure nested 10,000 deep is not rendered
			ChatClientResponse answered = turn(context, "No", (spec) -> spec.param(MantleHooks.DENY, approvalId)
				.param(MantleHooks.DENY_REASON, FaultyHooks.deep()));
			assertThat(text(answered)).isEqualTo("Alright.");
			assertThat(this.tools.calls).isEmpty();
			assertThat(this.openAi.messages(1)).last()
				.asString()
				.contains("The user declined this action")
				.doesNotContain("{k=");
		});
	}

	@Test
	void denialTellsTheModelAndRunsNothing() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")),
				Reply.text("Alright, I did not refund it."));
		this.contextRunner.run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
			ChatClientResponse answered = turn(context, "No, don't", MantleHooks.deny(approvalId, "changed my mind"));
			assertThat(text(answered)).isEqualTo("Alright, I did not refund it.");
			assertThat(this.tools.calls).isEmpty();
			assertThat(this.openAi.messages(1)).last()
				.isEqualTo("tool: {\"declined\":true,\"message\":\"The user declined this action.\","
						+ "\"reason\":\"changed my mind\"}");
		});
	}

	@Test
	void whatTheModelIsToldAboutADenialIsANamedReply() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")),
				Reply.text("Understood."));
		this.contextRunner
			.withPropertyValues("mantle.hooks.responses.utter_tool_call_declined=The customer said no; do not retry.")
			.run((context) -> {
				String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
				ChatClientResponse answered = turn(context, "No", MantleHooks.deny(approvalId, ""));
				assertThat(text(answered)).isEqualTo("Understood.");
				assertThat(this.tools.calls).isEmpty();
				assertThat(this.openAi.messages(1)).last()
					.isEqualTo("tool: {\"declined\":true,\"message\":\"The customer said no; do not retry.\"}");
			});
	}

	@Test
	void aBatchRunsOnceAndAnUnknownIdRunsNothing() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")),
				Reply.text("Refunded."));
		this.contextRunner.run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
			assertThat(text(approve(context, approvalId))).isEqualTo("Refunded.");
			ChatClientResponse again = approve(context, approvalId);
			assertThat(again.context()).containsEntry(MantleHooks.OUTCOME, "approval_not_found");
			assertThat(text(again)).isEqualTo("That request is no longer waiting for approval, so nothing was done.");
			ChatClientResponse unknown = approve(context, "no-such-approval");
			assertThat(unknown.context()).containsEntry(MantleHooks.OUTCOME, "approval_not_found");
			assertThat(this.tools.calls).containsExactly("refund 42-checked");
			assertThat(this.openAi.requests()).hasSize(2);
		});
	}

	@Test
	void anotherConversationCannotApproveTheBatch() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")));
		this.contextRunner.run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
			ChatClientResponse stranger = context.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("Yes")
				.tools(this.tools)
				.advisors(MantleHooks.identity("someone-else", Channel.of("web")))
				.advisors(MantleHooks.approve(approvalId))
				.call()
				.chatClientResponse();
			assertThat(stranger.context()).containsEntry(MantleHooks.OUTCOME, "approval_not_found");
			assertThat(this.tools.calls).isEmpty();
		});
	}

	@Test
	void anExpiredBatchCannotBeApproved() throws InterruptedException {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.ttl=50ms").run((context) -> {
			String approvalId = (String) turn(context, "Refund order 42").context().get(MantleHooks.APPROVAL_ID);
			Thread.sleep(100);
			assertThat(approve(context, approvalId).context()).containsEntry(MantleHooks.OUTCOME, "approval_not_found");
			assertThat(this.tools.calls).isEmpty();
		});
	}

	@Test
	void aPolicyDecidesPerCallAndAFailingPolicyAsksAPerson() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"7\"}")), Reply.text("Found 7."),
				Reply.toolCalls(new ToolCall("call_2", "lookup", "{\"id\":\"500\"}")),
				Reply.toolCalls(new ToolCall("call_3", "lookup", "{\"id\":\"boom\"}")),
				Reply.toolCalls(new ToolCall("call_4", "lookup", "{\"id\":\"linkage\"}")));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=")
			.withBean(ToolApprovalPolicy.class, () -> (call) -> {
				if ("boom-checked".equals(call.arguments().get("id"))) {
					throw new IllegalStateException("policy store down");
				}
				if ("linkage-checked".equals(call.arguments().get("id"))) {
					throw new NoClassDefFoundError("com/example/PolicyRules");
				}
				return ((String) call.arguments().get("id")).startsWith("500");
			})
			.run((context) -> {
				assertThat(text(turn(context, "Look up 7"))).isEqualTo("Found 7.");
				assertThat(turn(context, "Look up 500").context()).containsEntry(MantleHooks.OUTCOME,
						"awaiting_approval");
				assertThat(turn(context, "Look up boom").context()).containsEntry(MantleHooks.OUTCOME,
						"awaiting_approval");
				assertThat(turn(context, "Look up linkage").context()).as("an Error too")
					.containsEntry(MantleHooks.OUTCOME, "awaiting_approval");
				assertThat(this.tools.calls).containsExactly("lookup 7-checked");
			});
	}

	@Test
	void aRejectedQuestionDropsThePendingCall() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")));
		this.contextRunner.withBean("questionCensor", QuestionCensor.class).run((context) -> {
			ChatClientResponse paused = turn(context, "Refund order 42");
			assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "rejected")
				.doesNotContainKey(MantleHooks.APPROVAL_ID);
			assertThat(text(paused)).isEqualTo("Sorry, I can't share that response.");
		});
	}

	@Test
	void theQuestionNamesEveryCallOfTheBatchAndOnlyThoseRun() {
		this.openAi.reply(
				Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}"),
						new ToolCall("call_2", "refund", "{\"id\": \"43\",\n  \"amount\": 5000}")),
				Reply.text("Both refunded."));
		this.paymentsRunner.run((context) -> {
			ChatClientResponse paused = turnAs(context, "alice", "Refund my orders", (spec) -> {
			});
			String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);
			assertThat(text(paused)).isEqualTo("I need your approval before I run:\n"
					+ "refund {\"id\":\"42\",\"amount\":30}\nrefund {\"id\":\"43\",\"amount\":5000}");
			List<ApprovalCall> named = List.of(new ApprovalCall("refund", "{\"id\":\"42\",\"amount\":30}"),
					new ApprovalCall("refund", "{\"id\":\"43\",\"amount\":5000}"));
			assertThat(paused.context()).containsEntry(MantleHooks.APPROVAL_CALLS, named);
			assertThat(context.getBean(ApprovalStore.class).find(approvalId, Instant.now()))
				.hasValueSatisfying((pending) -> assertThat(pending.calls()).isEqualTo(named));
			assertThat(this.payments.refunds).isEmpty();
			ChatClientResponse answered = turnAs(context, "alice", "Yes", MantleHooks.approve(approvalId));
			assertThat(text(answered)).isEqualTo("Both refunded.");
			// what ran is exactly what the question named, in its order
			assertThat(this.payments.refunds).containsExactly("42 30", "43 5000");
			assertThat(this.openAi.messages(1)).contains(
					"assistant: [refund({\"id\":\"42\",\"amount\":30}), refund({\"id\":\"43\",\"amount\":5000})]");
		});
	}

	@Test
	void anOutgoingHookThatHidesACallOfTheQuestionDropsTheBatch(CapturedOutput output) {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}"),
				new ToolCall("call_2", "refund", "{\"id\":\"43\",\"amount\":5000}")));
		this.paymentsRunner.withBean("questionHooks", QuestionHooks.class).run((context) -> {
			QuestionHooks hooks = context.getBean(QuestionHooks.class);
			// a redaction hook masks the amounts: the user could not see what would run
			hooks.rewrite = (text) -> text.replaceAll("\"amount\":\\d+", "\"amount\":***");
			ChatClientResponse asked = turnAs(context, "alice", "Refund my orders", (spec) -> {
			});
			assertThat(asked.context()).containsEntry(MantleHooks.OUTCOME, "hook_error")
				.doesNotContainKey(MantleHooks.APPROVAL_ID);
			assertThat(text(asked)).isEqualTo("Sorry, I couldn't complete that action. Please try again.");
			assertThat(this.payments.refunds).isEmpty();
			assertThat(output).contains("no longer names every call that would run; the batch is dropped");
		});
	}

	@Test
	void anOutgoingHookMayRewordTheQuestionWhileItNamesEveryCall() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}")),
				Reply.text("Refunded."));
		this.paymentsRunner.withBean("questionHooks", QuestionHooks.class).run((context) -> {
			context.getBean(QuestionHooks.class).rewrite = (text) -> text + "\nReply yes or no.";
			ChatClientResponse asked = turnAs(context, "alice", "Refund my order", (spec) -> {
			});
			assertThat(asked.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval");
			String approvalId = (String) asked.context().get(MantleHooks.APPROVAL_ID);
			assertThat(text(turnAs(context, "alice", "yes", MantleHooks.approve(approvalId))))
				.isEqualTo("Refunded.\nReply yes or no.");
			assertThat(this.payments.refunds).containsExactly("42 30");
		});
	}

	@Test
	void aTextThatNamesOneCallIsUsedForOneCallBatchesOnly(CapturedOutput output) {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}")),
				Reply.toolCalls(new ToolCall("call_2", "refund", "{\"id\":\"42\",\"amount\":30}"),
						new ToolCall("call_3", "refund", "{\"id\":\"43\",\"amount\":5000}")));
		this.paymentsRunner
			.withPropertyValues(
					"mantle.hooks.responses.utter_tool_approval_required=May I run {tool} with {arguments}?")
			.run((context) -> {
				assertThat(text(turnAs(context, "alice", "Refund 42", (spec) -> {
				}))).isEqualTo("May I run refund with {\"id\":\"42\",\"amount\":30}?");
				assertThat(text(turnAs(context, "alice", "Refund both", (spec) -> {
				}))).isEqualTo("I need your approval before I run:\n"
						+ "refund {\"id\":\"42\",\"amount\":30}\nrefund {\"id\":\"43\",\"amount\":5000}");
			});
		assertThat(output).contains("has no {calls} placeholder");
	}

	@Test
	void anotherSenderInTheConversationCannotDecideAndTheBatchWaitsForItsOwner(CapturedOutput output) {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}")),
				Reply.text("Refunded."));
		this.paymentsRunner.run((context) -> {
			String approvalId = (String) turnAs(context, "alice", "Refund 42", (spec) -> {
			}).context().get(MantleHooks.APPROVAL_ID);
			for (var decision : List.of(MantleHooks.approve(approvalId), MantleHooks.deny(approvalId, "no"))) {
				ChatClientResponse mallory = turnAs(context, "mallory", "Yes", decision);
				assertThat(mallory.context()).containsEntry(MantleHooks.OUTCOME, "approval_not_allowed");
				assertThat(text(mallory)).isEqualTo("Sorry, you can't approve or decline that request.");
			}
			assertThat(this.payments.refunds).isEmpty();
			assertThat(this.openAi.requests()).hasSize(1);
			// still waiting for alice
			assertThat(text(turnAs(context, "alice", "Yes", MantleHooks.approve(approvalId)))).isEqualTo("Refunded.");
			assertThat(this.payments.refunds).containsExactly("42 30");
			assertThat(output).contains("may not decide approval '" + approvalId + "' of conversation '" + CONVERSATION
					+ "' (another sender paused it");
			assertThat(output.getAll().lines().filter((line) -> line.contains("may not decide")))
				.noneMatch((line) -> line.contains("amount"));
		});
	}

	@Test
	void decidedByConversationLetsAnyoneInTheConversationDecide() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}")),
				Reply.text("Refunded."));
		this.paymentsRunner.withPropertyValues("mantle.hooks.approvals.decided-by=conversation").run((context) -> {
			String approvalId = (String) turnAs(context, "alice", "Refund 42", (spec) -> {
			}).context().get(MantleHooks.APPROVAL_ID);
			assertThat(text(turnAs(context, "bob", "Yes", MantleHooks.approve(approvalId)))).isEqualTo("Refunded.");
			assertThat(this.payments.refunds).containsExactly("42 30");
		});
	}

	@Test
	void aBatchPausedWithoutSenderOrConversationWaitsForAnAuthorizer(CapturedOutput output) {
		for (String decidedBy : List.of("sender", "conversation")) {
			this.paymentsRunner.withPropertyValues("mantle.hooks.approvals.decided-by=" + decidedBy).run((context) -> {
				this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}")));
				String approvalId = (String) anonymous(context, "Refund 42", (spec) -> {
				}).context().get(MantleHooks.APPROVAL_ID);
				ChatClientResponse stranger = anonymous(context, "Yes", MantleHooks.approve(approvalId));
				assertThat(stranger.context()).as(decidedBy).containsEntry(MantleHooks.OUTCOME, "approval_not_allowed");
				assertThat(this.payments.refunds).isEmpty();
			});
		}
		assertThat(output).contains("with neither a sender nor a conversation id")
			.contains("only an ApprovalAuthorizer bean could");
	}

	@Test
	void anAuthorizerDecidesInsteadAndAFailingOneRefuses() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\",\"amount\":30}")),
				Reply.text("Refunded by the manager."));
		this.paymentsRunner.withBean(ApprovalAuthorizer.class, () -> (approval, senderId, channel) -> {
			if (senderId.equals("broken")) {
				throw new IllegalStateException("directory down");
			}
			// a manager may approve for any customer, refunds up to 100 only
			return senderId.equals("manager") && channel.name().equals("console")
					&& approval.calls()
						.stream()
						.allMatch((call) -> call.toolName().equals("refund") && !call.arguments().contains("5000"));
		}).run((context) -> {
			String approvalId = (String) anonymous(context, "Refund 42", (spec) -> {
			}).context().get(MantleHooks.APPROVAL_ID);
			for (String sender : List.of("", "customer", "broken")) {
				ChatClientResponse refused = turnAs(context, sender, "other", "Yes", MantleHooks.approve(approvalId),
						"console");
				assertThat(refused.context()).as(sender).containsEntry(MantleHooks.OUTCOME, "approval_not_allowed");
			}
			assertThat(this.payments.refunds).isEmpty();
			ChatClientResponse manager = turnAs(context, "manager", "managers", "Approved",
					MantleHooks.approve(approvalId), "console");
			assertThat(text(manager)).isEqualTo("Refunded by the manager.");
			assertThat(this.payments.refunds).containsExactly("42 30");
		});
	}

	@Test
	void approvalsWorkInStreamedTurns() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"id\":\"42\"}")),
				Reply.text("Order 42 is refunded."));
		this.contextRunner.run((context) -> {
			List<ChatClientResponse> paused = context.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("Refund order 42")
				.tools(this.tools)
				.advisors(ChatTestSupport.memory(this.memory, CONVERSATION))
				.stream()
				.chatClientResponse()
				.collectList()
				.block();
			ChatClientResponse last = paused.get(paused.size() - 1);
			assertThat(last.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval")
				.containsEntry(MantleHooks.APPROVAL_CALLS,
						List.of(new ApprovalCall("refund", "{\"id\":\"42-checked\"}")));
			assertThat(paused.stream()
				.filter((chunk) -> chunk.chatResponse() != null && chunk.chatResponse().getResult() != null)
				.map(ApprovalTests::text)
				.filter(Objects::nonNull)
				.reduce("", String::concat))
				.isEqualTo("I need your approval before I run:\nrefund {\"id\":\"42-checked\"}");
			String approvalId = (String) last.context().get(MantleHooks.APPROVAL_ID);
			String answer = String.join("",
					context.getBean(ChatClient.Builder.class)
						.build()
						.prompt()
						.user("Yes")
						.tools(this.tools)
						.advisors(ChatTestSupport.memory(this.memory, CONVERSATION))
						.advisors(MantleHooks.approve(approvalId))
						.stream()
						.content()
						.collectList()
						.block());
			assertThat(answer).isEqualTo("Order 42 is refunded.");
			assertThat(this.tools.calls).containsExactly("refund 42-checked");
		});
	}

	/**
	 * A turn of the test's conversation by a sender, with the payment tools.
	 */
	private ChatClientResponse turnAs(AssertableApplicationContext context, String sender, String text,
			Consumer<ChatClient.AdvisorSpec> params) {
		return turnAs(context, sender, CONVERSATION, text, params, "web");
	}

	private ChatClientResponse turnAs(AssertableApplicationContext context, String sender, String conversation,
			String text, Consumer<ChatClient.AdvisorSpec> params, String channel) {
		return context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(text)
			.tools(this.payments)
			.advisors(ChatTestSupport.memory(this.memory, conversation))
			.advisors(MantleHooks.identity(sender, Channel.of(channel)))
			.advisors(params)
			.call()
			.chatClientResponse();
	}

	/**
	 * A turn with neither a sender nor a conversation id.
	 */
	private ChatClientResponse anonymous(AssertableApplicationContext context, String text,
			Consumer<ChatClient.AdvisorSpec> params) {
		return context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(text)
			.tools(this.payments)
			.advisors(params)
			.call()
			.chatClientResponse();
	}

	private ChatClientResponse turn(AssertableApplicationContext context, String text) {
		return turn(context, text, (spec) -> {
		});
	}

	private ChatClientResponse approve(AssertableApplicationContext context, String approvalId) {
		return turn(context, "Yes, go ahead", MantleHooks.approve(approvalId));
	}

	/**
	 * A turn of the test's conversation, with its tools, memory and these advisor params.
	 */
	private ChatClientResponse turn(AssertableApplicationContext context, String text,
			Consumer<ChatClient.AdvisorSpec> params) {
		return context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(text)
			.tools(this.tools)
			.advisors(ChatTestSupport.memory(this.memory, CONVERSATION))
			.advisors(params)
			.call()
			.chatClientResponse();
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	/** A store whose database fails every way it can: an exception, or an Error. */
	static class BrokenStore implements ApprovalStore {

		@Override
		public void save(PendingApproval approval) {
			throw new IllegalStateException("approvals table is gone");
		}

		@Override
		public Optional<PendingApproval> claim(String id, String conversationId, Instant now) {
			throw new NoClassDefFoundError("approvals table is gone");
		}

		@Override
		public Optional<PendingApproval> find(String id, Instant now) {
			throw new NoClassDefFoundError("approvals table is gone");
		}

		@Override
		public void delete(String id) {
		}

	}

	static class ApprovalHooks {

		final List<String> preflights = new CopyOnWriteArrayList<>();

		final List<String> results = new CopyOnWriteArrayList<>();

		@ModifyToolCall
		ToolCallPayload check(ToolCallPayload call) {
			this.preflights.add(call.toolName());
			return call.withArguments(Map.of("id", call.arguments().get("id") + "-checked"));
		}

		@OnToolResult
		void result(ToolResultPayload result) {
			this.results.add(result.toolName());
		}

	}

	static class QuestionCensor {

		@ModifyOutgoingText
		OutgoingTextPayload censor(OutgoingTextPayload outgoing) {
			if (outgoing.text().contains("approval")) {
				throw new HookRejection("no approval questions on this channel");
			}
			return outgoing;
		}

	}

	static class QuestionHooks {

		volatile UnaryOperator<String> rewrite = UnaryOperator.identity();

		@ModifyOutgoingText
		OutgoingTextPayload rewrite(OutgoingTextPayload text) {
			return text.withText(this.rewrite.apply(text.text()));
		}

	}

	static class Payments {

		final List<String> refunds = new CopyOnWriteArrayList<>();

		@Tool(name = "refund", description = "Refund an amount for an order")
		String refund(String id, int amount) {
			this.refunds.add(id + " " + amount);
			return "refunded " + amount + " for " + id;
		}

	}

	static class ShopTools {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			this.calls.add("lookup " + id);
			return id + " found";
		}

		@Tool(name = "refund", description = "Refund an order")
		String refund(String id) {
			this.calls.add("refund " + id);
			return id + " refunded";
		}

	}

}
