package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.AsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each tool result passes its hook on a hook thread right after its tool returned, in
 * batch order, under its own timeout, with the outcomes a result has always had when its
 * hook hangs, crashes or returns garbage; a hook that hangs on one result holds neither
 * the later results nor the turn. Real OpenAI client over HTTP; the hook executor starts
 * a fresh thread per task, as virtual threads do.
 */
class ToolResultHookThreadTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean(MantleHooksAutoConfiguration.HOOK_EXECUTOR_BEAN_NAME, AsyncTaskExecutor.class,
				ToolBatchHandOffTests::threadPerTask)
		.withBean("resultHooks", ResultHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void eachResultPassesItsHookInBatchOrderOnAHookThread(String driver) {
		int size = 12;
		this.openAi.reply(ToolBatchHandOffTests.batch(size), Reply.text("All checked."));
		this.contextRunner.run((context) -> {
			ResultHooks hooks = context.getBean(ResultHooks.class);
			ToolBatchHandOffTests.LookupTools tools = new ToolBatchHandOffTests.LookupTools();
			assertThat(ToolBatchHandOffTests.ask(context, tools, driver)).isEqualTo("All checked.");
			assertThat(tools.ran).containsExactlyElementsOf(ToolBatchHandOffTests.ids(size));
			assertThat(hooks.seen).containsExactlyElementsOf(found(size));
			assertThat(hooks.threads)
				.allSatisfy((thread) -> assertThat(thread.getName()).startsWith(ToolBatchHandOffTests.HOOK_THREAD));
			assertThat(this.openAi.messages(1)).containsSequence(sentResults(size, -1));
			assertThat(modifier(context).outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, (long) size);
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "interruptible", "ignoring interrupts" })
	void aHookThatHangsOnTheSecondResultTimesOutAndTheLaterResultsStillPassTheirHooks(String hang) {
		int size = 5;
		this.openAi.reply(ToolBatchHandOffTests.batch(size), Reply.text("All checked."));
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook[resultHooks.check]=2s").run((context) -> {
			ResultHooks hooks = context.getBean(ResultHooks.class);
			hooks.result = (result) -> {
				if (result.value().contains("A2")) {
					if (hang.equals("interruptible")) {
						// ends when the timeout interrupts it
						Stalls.sleep(120_000);
					}
					else {
						Stalls.awaitIgnoringInterrupts(release, 120_000);
					}
				}
				return result;
			};
			try {
				ToolBatchHandOffTests.LookupTools tools = new ToolBatchHandOffTests.LookupTools();
				assertThat(ToolBatchHandOffTests.ask(context, tools, "call")).isEqualTo("All checked.");
				// answered while the hook that ignores interrupts still holds its thread
				assertThat(release.getCount()).isOne();
				assertThat(tools.ran).containsExactlyElementsOf(ToolBatchHandOffTests.ids(size));
				// fail open: the hung result reaches the model as the tool returned it
				assertThat(this.openAi.messages(1)).containsSequence(sentResults(size, 1));
				HookMethod hook = modifier(context);
				assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.TIMEOUT, 1L)
					.containsEntry(HookOutcome.PROCEEDED, (long) size - 1);
			}
			finally {
				release.countDown();
			}
		});
	}

	@Test
	void aStreamCancelledWhileAResultHookRunsEndsTheTurnAndLeavesNoHookRunning() {
		int size = 5;
		this.openAi.reply(ToolBatchHandOffTests.batch(size), Reply.text("All checked."));
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.run((context) -> {
			ResultHooks hooks = context.getBean(ResultHooks.class);
			hooks.result = (result) -> {
				if (result.value().contains("A2")) {
					entered.countDown();
					Stalls.awaitIgnoringInterrupts(release, 120_000);
				}
				return result;
			};
			List<String> received = new CopyOnWriteArrayList<>();
			Disposable turn = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Look them up")
				.tools(new ToolBatchHandOffTests.LookupTools())
				.stream()
				.content()
				.subscribe(received::add);
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> entered.getCount() == 0);
				turn.dispose();
			}
			finally {
				release.countDown();
			}
			HookRunner runner = context.getBean(HookRunner.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> runner.getModifiersInFlight() == 0);
			// the cancelled turn never went back to the model, and its caller got nothing
			assertThat(this.openAi.requests()).hasSize(1);
			assertThat(received).isEmpty();
			assertThat(hooks.seen).startsWith("\"A1 found\"", "\"A2 found\"");
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "crash", "error", "null" })
	void aFaultOnTheSecondResultKeepsThatResultAndTheOthersPassTheirHooks(String fault) {
		int size = 5;
		this.openAi.reply(ToolBatchHandOffTests.batch(size), Reply.text("All checked."));
		this.contextRunner.run((context) -> {
			ResultHooks hooks = context.getBean(ResultHooks.class);
			hooks.result = (result) -> {
				if (!result.value().contains("A2")) {
					return result;
				}
				return switch (fault) {
					case "crash" -> throw new IllegalStateException("audit store at 10.0.0.7 is down");
					case "error" -> throw new StackOverflowError();
					default -> null;
				};
			};
			ToolBatchHandOffTests.LookupTools tools = new ToolBatchHandOffTests.LookupTools();
			assertThat(ToolBatchHandOffTests.ask(context, tools, "stream")).isEqualTo("All checked.");
			assertThat(tools.ran).containsExactlyElementsOf(ToolBatchHandOffTests.ids(size));
			assertThat(this.openAi.messages(1)).containsSequence(sentResults(size, 1))
				.noneMatch((message) -> message.contains("10.0.0.7"));
			assertThat(modifier(context).outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, (long) size - 1);
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aBurstOfBatchesPassesEveryResultThroughItsHealthyHook(String driver) {
		int turns = 100;
		int calls = 5;
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withPropertyValues("mantle.hooks.timeouts.modify=120s")
			.withBean(ToolBatchHandOffTests.BatchModel.class)
			.withBean("resultHooks", ResultHooks.class)
			.run((context) -> {
				ResultHooks hooks = context.getBean(ResultHooks.class);
				List<String> replies = ToolBatchHandOffTests.burstOfBatches(context, turns, driver);
				for (int i = 0; i < turns; i++) {
					List<String> checked = new ArrayList<>();
					for (int call = 0; call < calls; call++) {
						checked.add("t" + i + "-" + call + " found (checked)");
					}
					assertThat(replies.get(i)).as("reply of turn " + i).isEqualTo(String.join(", ", checked));
				}
				HookMethod hook = modifier(context);
				assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, (long) turns * calls);
				assertThat(hook.outcomeCounts().values().stream().mapToLong(Long::longValue).sum())
					.isEqualTo((long) turns * calls);
				assertThat(hook.rejectedInvocations()).isZero();
				assertThat(hooks.seen).hasSize(turns * calls);
			});
	}

	private static HookMethod modifier(AssertableApplicationContext context) {
		HookMethod hook = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.TOOL_RESULT);
		assertThat(hook).isNotNull();
		return hook;
	}

	/**
	 * What the model is sent back: each result with its hook's mark, but the one at
	 * {@code unchecked} as the tool returned it.
	 */
	private static List<String> sentResults(int size, int unchecked) {
		List<String> sent = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			sent.add((i == unchecked) ? "tool: \"A" + (i + 1) + " found\""
					: "tool: \"A" + (i + 1) + " found\" (checked)");
		}
		return sent;
	}

	private static List<String> found(int size) {
		return ToolBatchHandOffTests.ids(size).stream().map((id) -> "\"" + id + " found\"").toList();
	}

	/**
	 * A tool-result hook that marks each result and records what it saw and where.
	 */
	static class ResultHooks {

		final List<String> seen = new CopyOnWriteArrayList<>();

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		volatile UnaryOperator<ToolResultPayload> result = UnaryOperator.identity();

		@ModifyToolResult(timeoutMs = 120_000)
		ToolResultPayload check(ToolResultPayload payload) {
			this.threads.add(Thread.currentThread());
			this.seen.add(payload.value());
			ToolResultPayload judged = this.result.apply(payload);
			return (judged != null) ? judged.withValue(judged.value() + " (checked)") : null;
		}

	}

}
