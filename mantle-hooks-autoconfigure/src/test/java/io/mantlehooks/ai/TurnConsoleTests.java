package io.mantlehooks.ai;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.mantlehooks.Channel;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.WipeTools;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.approval.ApprovalResumer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.InMemoryApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.autoconfigure.MantleHooksConsoleAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksEndpoint;
import io.mantlehooks.autoconfigure.MantleHooksProperties;
import io.mantlehooks.console.RecordedHook;
import io.mantlehooks.console.RecordedTurn;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.console.TurnRecorder;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.test.ScriptedChatModel;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The turn console's recorder and data, from real turns: what it records per turn and per
 * hook (crashes and timeouts included), its bound, cancelled streams, texts only when
 * asked for, and decisions on waiting approvals.
 */
@org.junit.jupiter.api.extension.ExtendWith(OutputCaptureExtension.class)
class TurnConsoleTests {

	/** An application with the console on, and no hooks yet. */
	private final ApplicationContextRunner consoleApplication = new ApplicationContextRunner()
		.withConfiguration(ChatTestSupport.mantleConfigurations())
		.withConfiguration(
				AutoConfigurations.of(ObservationAutoConfiguration.class, MantleHooksConsoleAutoConfiguration.class))
		// healthy hooks get far more time than a loaded machine needs; the hung
		// observer has its own short timeout
		.withPropertyValues("mantle.hooks.console.enabled=true", "mantle.hooks.timeouts.modify=60s",
				"mantle.hooks.timeouts.observe=60s");

	private final ApplicationContextRunner contextRunner = this.consoleApplication.withBean("consoleHooks",
			ConsoleHooks.class);

	@Test
	void eachTurnIsRecordedWithItsHooksOnTheirLanes() {
		this.contextRunner.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().text("Hello there"))
			.run((context) -> {
				ChatClientResponse response = chat(context.getBean(ChatClient.Builder.class).build(), "hi");
				String turnId = (String) response.context().get(MantleHooks.TURN_ID);
				TurnRecorder recorder = context.getBean(TurnRecorder.class);
				// the hung observer is recorded when its timeout ends it, after the turn
				await().atMost(Duration.ofSeconds(60))
					.until(() -> recorder.turn(turnId).map((turn) -> turn.hooks().size() >= 3).orElse(false));
				RecordedTurn turn = recorder.turn(turnId).orElseThrow();
				assertThat(turn.outcome()).isEqualTo("hook_error");
				assertThat(response.chatResponse().getResult().getOutput().getText()).doesNotContain("boom");
				assertThat(turn.senderId()).isEqualTo("u-1");
				assertThat(turn.channel()).isEqualTo("rest");
				assertThat(turn.conversationId()).isEqualTo("u-1");
				assertThat(turn.hooks())
					.extracting(RecordedHook::point, RecordedHook::lane, RecordedHook::hook, RecordedHook::outcome)
					.contains(Tuple.tuple("incoming-message", "modify", "consoleHooks.shout", "proceeded"),
							Tuple.tuple("model-request", "modify", "consoleHooks.crash", "crash"),
							Tuple.tuple("turn-finished", "observe", "consoleHooks.hang", "timeout"));
				assertThat(turn.hooks()).allSatisfy((hook) -> {
					assertThat(hook.before()).isNull();
					assertThat(hook.after()).isNull();
					assertThat(hook.startMs()).isGreaterThanOrEqualTo(0);
				});
			});
	}

	@Test
	void textsBeforeAndAfterModifyHooksOnlyWhenAskedFor() {
		this.contextRunner.withPropertyValues("mantle.hooks.console.include-text=true")
			.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().text("fine"))
			.run((context) -> {
				String turnId = (String) chat(context.getBean(ChatClient.Builder.class).build(), "quiet please")
					.context()
					.get(MantleHooks.TURN_ID);
				RecordedTurn turn = context.getBean(TurnRecorder.class).turn(turnId).orElseThrow();
				RecordedHook shout = hook(turn, "consoleHooks.shout");
				assertThat(shout.before()).isEqualTo("quiet please");
				assertThat(shout.after()).isEqualTo("QUIET PLEASE");
				RecordedHook crash = hook(turn, "consoleHooks.crash");
				assertThat(crash.before()).contains("user: QUIET PLEASE");
				assertThat(crash.after()).as("a failed hook proceeded with nothing").isNull();
				assertThat(context.getBean(TurnConsole.class).turns().turns()).flatMap(RecordedTurn::hooks)
					.as("the list leaves texts to the detail")
					.allSatisfy((hook) -> assertThat(hook.before()).isNull());
			});
	}

	@Test
	void onlyTheMostRecentTurnsAreKept() {
		this.contextRunner.withPropertyValues("mantle.hooks.console.max-turns=3")
			.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().otherwise((prompt) -> "ok"))
			.run((context) -> {
				ChatClient chatClient = context.getBean(ChatClient.Builder.class).build();
				List<String> ids = new ArrayList<>();
				for (int i = 0; i < 5; i++) {
					ids.add((String) chat(chatClient, "n" + i).context().get(MantleHooks.TURN_ID));
				}
				assertThat(context.getBean(TurnRecorder.class).turns()).extracting(RecordedTurn::id)
					.containsExactlyInAnyOrderElementsOf(ids.subList(2, 5));
			});
	}

	@Test
	void aCancelledStreamIsRecordedAsCancelled() {
		this.contextRunner
			.withBean(ScriptedChatModel.class,
					() -> new ScriptedChatModel().text("one two three four five six seven eight"))
			.run((context) -> {
				Flux<ChatClientResponse> stream = context.getBean(ChatClient.Builder.class)
					.build()
					.prompt()
					.user("stream")
					.advisors(MantleHooks.identity("u-2", Channel.of("web")))
					.stream()
					.chatClientResponse();
				stream.take(1).blockLast();
				TurnRecorder recorder = context.getBean(TurnRecorder.class);
				await().atMost(Duration.ofSeconds(60))
					.until(() -> recorder.turns()
						.stream()
						.anyMatch((turn) -> turn.senderId().equals("u-2") && !turn.outcome().equals("running")));
				assertThat(recorder.turns()).filteredOn((turn) -> turn.senderId().equals("u-2"))
					.singleElement()
					.satisfies((turn) -> assertThat(turn.outcome()).isEqualTo("cancelled"));
			});
	}

	@Test
	void decisionsNeedAResumerAndAWaitingApproval() {
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=wipe")
			.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().toolCall("wipe", "{}"))
			.run((context) -> {
				ChatClientResponse paused = askToWipe(context, MantleHooks.identity("u-3", Channel.of("rest")));
				String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);
				TurnConsole console = context.getBean(TurnConsole.class);
				String turnId = (String) paused.context().get(MantleHooks.TURN_ID);
				assertThat(console.turn(turnId).orElseThrow().approval()).satisfies((approval) -> {
					assertThat(approval.pending()).isTrue();
					assertThat(approval.unreadable()).isFalse();
					assertThat(approval.calls()).containsExactly("wipe");
				});
				assertThat(console.decide(approvalId, true, null).outcome()).isEqualTo("unsupported");
				MantleHooksEndpoint endpoint = endpoint(context, console);
				assertThat(endpoint.turns("turns").turns()).extracting(RecordedTurn::id).contains(turnId);
				assertThat(endpoint.turns("other")).isNull();
				assertThat(endpoint.turn("turns", "missing")).isNull();
			});
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=wipe")
			.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().toolCall("wipe", "{}"))
			.withBean(ApprovalResumer.class, () -> (approval, approved, reason) -> {
				throw new NoClassDefFoundError("secret/Internals");
			})
			.run((context) -> {
				ChatClientResponse paused = askToWipe(context);
				TurnConsole console = context.getBean(TurnConsole.class);
				TurnConsole.Decision failed = console.decide((String) paused.context().get(MantleHooks.APPROVAL_ID),
						true, null);
				assertThat(failed.outcome()).isEqualTo("error");
				assertThat(failed.reply()).isNull();
				assertThat(console.decide("unknown", true, null).outcome()).isEqualTo("approval_not_found");
			});
	}

	@Test
	void theConsoleListsTheCallsTheQuestionNamed() {
		Map<String, String> calls = new LinkedHashMap<>();
		calls.put("archive", "{\"id\": \"7\"}");
		calls.put("wipe", "{}");
		for (boolean includeText : List.of(true, false)) {
			this.contextRunner
				.withPropertyValues("mantle.hooks.approvals.tools=wipe",
						"mantle.hooks.console.include-text=" + includeText)
				.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().toolCalls(null, calls))
				.run((context) -> {
					ChatClientResponse paused = context.getBean(ChatClient.Builder.class)
						.build()
						.prompt()
						.user("store 7 and clear")
						.tools(new WipeTools(), new ArchiveTools())
						.call()
						.chatClientResponse();
					assertThat(paused.chatResponse().getResult().getOutput().getText())
						.isEqualTo("I need your approval before I run:\narchive {\"id\":\"7\"}\nwipe {}");
					assertThat(paused.context()).containsEntry(MantleHooks.APPROVAL_CALLS,
							List.of(new ApprovalCall("archive", "{\"id\":\"7\"}"), new ApprovalCall("wipe", "{}")));
					String turnId = (String) paused.context().get(MantleHooks.TURN_ID);
					assertThat(context.getBean(TurnConsole.class).turn(turnId).orElseThrow().approval().calls())
						.containsExactlyElementsOf(includeText ? List.of("archive {\"id\":\"7\"}", "wipe {}")
								: List.of("archive", "wipe"));
				});
		}
	}

	@Test
	void aStoreThatCannotBeReadStillShowsTheTurn(CapturedOutput output) {
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=wipe")
			.withBean(ScriptedChatModel.class, () -> new ScriptedChatModel().toolCall("wipe", "{}"))
			.withBean(ApprovalStore.class, UnreadableApprovals::new)
			.run((context) -> {
				ChatClientResponse paused = askToWipe(context);
				String turnId = (String) paused.context().get(MantleHooks.TURN_ID);
				TurnConsole.TurnDetail detail = context.getBean(TurnConsole.class).turn(turnId).orElseThrow();
				assertThat(detail.turn().outcome()).isEqualTo("awaiting_approval");
				assertThat(detail.approval()).satisfies((approval) -> {
					assertThat(approval.pending()).isFalse();
					assertThat(approval.unreadable()).isTrue();
					assertThat(approval.calls()).isEmpty();
				});
			});
		assertThat(output).contains("Could not read approval ").contains("store is down");
	}

	@Test
	void twoDecisionsAtOnceRunTheBatchOnceAndTheOtherIsToldItWasNotFound() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.approvals.tools=wipe", "mantle.hooks.console.include-text=true")
			.withBean(ScriptedChatModel.class,
					() -> new ScriptedChatModel().toolCall("wipe", "{}").otherwise((prompt) -> "All wiped."))
			.withBean(RacingResumer.class)
			.run((context) -> {
				RacingResumer resumer = context.getBean(RacingResumer.class);
				ChatClientResponse paused = resumer.chat("wipe it", (spec) -> {
				});
				String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);
				TurnConsole console = context.getBean(TurnConsole.class);
				// both operators see it waiting, both press Approve
				ExecutorService operators = Executors.newFixedThreadPool(2);
				List<CompletableFuture<TurnConsole.Decision>> decisions = List.of(
						CompletableFuture.supplyAsync(() -> console.decide(approvalId, true, null), operators),
						CompletableFuture.supplyAsync(() -> console.decide(approvalId, true, null), operators));
				List<TurnConsole.Decision> decided = decisions.stream().map(CompletableFuture::join).toList();
				operators.shutdown();
				assertThat(decided).extracting(TurnConsole.Decision::outcome)
					.containsExactlyInAnyOrder("approved", "approval_not_found");
				assertThat(decided).filteredOn((decision) -> decision.outcome().equals("approved"))
					.singleElement()
					.extracting(TurnConsole.Decision::reply)
					.isEqualTo("All wiped.");
				assertThat(resumer.tools.wiped).hasValue(1);
			});
	}

	@Test
	void aDecisionIsReportedByWhetherTheBatchStillWaits() {
		this.consoleApplication.withPropertyValues("mantle.hooks.approvals.tools=wipe")
			.withBean(ScriptedChatModel.class,
					() -> new ScriptedChatModel().toolCall("wipe", "{}").otherwise((prompt) -> "All wiped."))
			.withBean(PlainResumer.class)
			.withBean("strictWords", StrictWords.class)
			.run((context) -> {
				PlainResumer resumer = context.getBean(PlainResumer.class);
				String approvalId = (String) resumer.chat("wipe it", (spec) -> {
				}).context().get(MantleHooks.APPROVAL_ID);
				TurnConsole console = context.getBean(TurnConsole.class);
				// the resuming message is refused before the claim: nothing was decided
				resumer.words = "forbidden words";
				assertThat(console.decide(approvalId, true, null).outcome()).isEqualTo("rejected");
				assertThat(resumer.tools.wiped).hasValue(0);
				// the batch runs, then the final answer is refused: it was approved all
				// the same
				resumer.words = "Approved in the console.";
				assertThat(console.decide(approvalId, true, null).outcome()).isEqualTo("approved");
				assertThat(resumer.tools.wiped).hasValue(1);
			});
	}

	@Test
	void withoutAnObservationRegistryTheConsoleSaysItCannotRecord(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withConfiguration(AutoConfigurations.of(MantleHooksConsoleAutoConfiguration.class))
			.withPropertyValues("mantle.hooks.console.enabled=true")
			.withBean(ScriptedChatModel.class, ScriptedChatModel::new)
			.run((context) -> assertThat(context).hasSingleBean(TurnRecorder.class));
		assertThat(output).contains("there is no ObservationRegistry, so no turn is recorded");
	}

	@Test
	void theConsoleIsOffByDefaultAndBadSettingsFailStartup() {
		this.contextRunner.withPropertyValues("mantle.hooks.console.enabled=false")
			.withBean(ScriptedChatModel.class, ScriptedChatModel::new)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(TurnRecorder.class);
				assertThat(endpoint(context, null).turns("turns")).isNull();
			});
		this.contextRunner.withPropertyValues("mantle.hooks.console.path=console/")
			.withBean(ScriptedChatModel.class, ScriptedChatModel::new)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("mantle.hooks.console.path must start with '/'"));
		this.contextRunner.withPropertyValues("mantle.hooks.console.max-turns=0")
			.withBean(ScriptedChatModel.class, ScriptedChatModel::new)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("mantle.hooks.console.max-turns must be positive"));
	}

	private static MantleHooksEndpoint endpoint(ApplicationContext context, TurnConsole console) {
		return new MantleHooksEndpoint(context.getBean(HookRegistry.class), context.getBean(HookRunner.class),
				context.getBean(MantleHooksProperties.class), console);
	}

	private static RecordedHook hook(RecordedTurn turn, String name) {
		return turn.hooks().stream().filter((hook) -> hook.hook().equals(name)).findFirst().orElseThrow();
	}

	private static ChatClientResponse chat(ChatClient chatClient, String text) {
		return chatClient.prompt()
			.user(text)
			.advisors(MantleHooks.identity("u-1", Channel.of("rest")))
			.call()
			.chatClientResponse();
	}

	/**
	 * A turn that pauses: the scripted model asks for {@code wipe}, which needs approval.
	 */
	private static ChatClientResponse askToWipe(AssertableApplicationContext context) {
		return askToWipe(context, (spec) -> {
		});
	}

	private static ChatClientResponse askToWipe(AssertableApplicationContext context,
			Consumer<ChatClient.AdvisorSpec> advisors) {
		return context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("wipe it")
			.tools(new WipeTools())
			.advisors(advisors)
			.call()
			.chatClientResponse();
	}

	static class ConsoleHooks {

		@ModifyIncomingMessage
		IncomingMessagePayload shout(IncomingMessagePayload message) {
			return message.withText(message.text().toUpperCase());
		}

		@ModifyModelRequest
		ModelRequestPayload crash(ModelRequestPayload request) {
			if (request.messages().toString().contains("QUIET") || request.messages().toString().contains("HI")) {
				throw new IllegalStateException("boom");
			}
			return request;
		}

		@OnTurnFinished(timeoutMs = 50)
		void hang(TurnFinishedPayload turn) {
			Stalls.parkIgnoringInterrupts(400);
		}

	}

	static class ArchiveTools {

		@Tool(description = "archive an order")
		String archive(String id) {
			return "archived " + id;
		}

	}

	/** Keeps batches, but cannot read one back for the console. */
	static class UnreadableApprovals implements ApprovalStore {

		private final ApprovalStore batches = new InMemoryApprovalStore();

		@Override
		public void save(PendingApproval approval) {
			this.batches.save(approval);
		}

		@Override
		public Optional<PendingApproval> claim(String id, String conversationId, Instant now) {
			return this.batches.claim(id, conversationId, now);
		}

		@Override
		public Optional<PendingApproval> find(String id, Instant now) {
			throw new NoClassDefFoundError("store is down");
		}

		@Override
		public void delete(String id) {
			this.batches.delete(id);
		}

	}

	/**
	 * Resumes through the application's chat client; both resumers wait for each other,
	 * so both decisions pass the console's look-up before either claims the batch.
	 */
	static class RacingResumer implements ApprovalResumer {

		final WipeTools tools = new WipeTools();

		private final ChatClient chatClient;

		private final CyclicBarrier together = new CyclicBarrier(2);

		RacingResumer(ChatClient.Builder builder) {
			this.chatClient = builder.build();
		}

		ChatClientResponse chat(String text, Consumer<ChatClient.AdvisorSpec> advisors) {
			return this.chatClient.prompt()
				.user(text)
				.tools(this.tools)
				.advisors(MantleHooks.identity("u-9", Channel.of("rest")))
				.advisors(advisors)
				.call()
				.chatClientResponse();
		}

		@Override
		public ChatClientResponse resume(PendingApproval approval, boolean approved, String reason) {
			try {
				this.together.await(60, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			return chat("Approved in the console.", MantleHooks.approve(approval.id()));
		}

	}

	/** Resumes at once, with the words the test chose. */
	static class PlainResumer extends RacingResumer {

		volatile String words = "";

		PlainResumer(ChatClient.Builder builder) {
			super(builder);
		}

		@Override
		public ChatClientResponse resume(PendingApproval approval, boolean approved, String reason) {
			return chat(this.words, MantleHooks.approve(approval.id()));
		}

	}

	static class StrictWords {

		@ModifyIncomingMessage
		IncomingMessagePayload words(IncomingMessagePayload message) {
			if (message.text().contains("forbidden")) {
				throw new HookRejection("forbidden words");
			}
			return message;
		}

		@ModifyOutgoingText
		OutgoingTextPayload answer(OutgoingTextPayload text) {
			if (text.text().contains("All wiped")) {
				throw new HookRejection("no boasting");
			}
			return text;
		}

	}

}
