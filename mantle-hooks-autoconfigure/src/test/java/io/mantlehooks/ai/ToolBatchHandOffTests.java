package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.Callers;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.RetryModel;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A batch's tool-call hook invocations run one after another, in batch order, each on a
 * hook thread and under its own timeout, with the outcomes a batch has always had (a
 * hang, crash, {@code Error}, {@code null}, retry or refusal on one call). The hook
 * executor here starts a fresh thread per task, as virtual threads do.
 */
class ToolBatchHandOffTests {

	private static final String TOOL_ERROR = "Sorry, I couldn't complete that action. Please try again.";

	static final String HOOK_THREAD = "mantle-hook-";

	/** Turns of the burst, at once. */
	private static final int BURST = 200;

	/** Calls in each turn's batch. */
	private static final int CALLS = 5;

	/** Tool-call hook invocations that wait for each other (max-concurrent is 64). */
	private static final int WAVE = 100;

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean(MantleHooksAutoConfiguration.HOOK_EXECUTOR_BEAN_NAME, AsyncTaskExecutor.class,
				ToolBatchHandOffTests::threadPerTask)
		.withBean("batchHooks", BatchHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aBatchsToolCallHookRunsOnHookThreadsInBatchOrder(String driver) {
		int size = 12;
		this.openAi.reply(batch(size), Reply.text("All found."));
		this.contextRunner.run((context) -> {
			BatchHooks hooks = context.getBean(BatchHooks.class);
			LookupTools tools = new LookupTools();
			String reply = ask(context, tools, driver);
			assertThat(reply).isEqualTo("All found.");
			assertThat(hooks.preflight).containsExactlyElementsOf(ids(size));
			assertThat(hooks.threads).hasSize(size)
				.allSatisfy((thread) -> assertThat(thread.getName()).startsWith(HOOK_THREAD));
			assertThat(tools.ran).containsExactlyElementsOf(ids(size));
			List<String> sent = new ArrayList<>();
			sent.add("user: Look them up");
			sent.add("assistant: "
					+ ids(size).stream().map((id) -> "lookup({\"id\":\"" + id + "\"})").toList().toString());
			ids(size).forEach((id) -> sent.add("tool: \"" + id + " found\""));
			assertThat(this.openAi.messages(1)).containsExactlyElementsOf(sent);
			await().atMost(Duration.ofSeconds(60)).until(() -> hooks.observed.size() == size);
			assertThat(hooks.observed).containsExactlyInAnyOrderElementsOf(ids(size));
			// each invocation was observed and recorded by the circuit breaker on its own
			HookMethod hook = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.TOOL_CALL);
			assertThat(hook).isNotNull();
			assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, (long) size);
			assertThat(hook.circuitBreaker()).isNotNull();
			assertThat(hook.circuitBreaker().getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(size);
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aTurnCancelledDuringPreflightStartsNoFurtherToolCallHook(String driver) throws InterruptedException {
		this.openAi.reply(batch(3), Reply.text("All found."));
		this.contextRunner.run((context) -> {
			BatchHooks hooks = context.getBean(BatchHooks.class);
			CountDownLatch release = new CountDownLatch(1);
			hooks.call = (call) -> {
				if ("A1".equals(call.arguments().get("id"))) {
					awaitUninterruptibly(release);
				}
				return call;
			};
			LookupTools tools = new LookupTools();
			ChatClient.ChatClientRequestSpec request = lookUp(context, tools);
			Runnable cancel;
			if (driver.equals("call")) {
				Thread caller = new Thread(() -> {
					try {
						request.call().content();
					}
					catch (RuntimeException ex) {
						// what the cancelled turn answers is tested elsewhere
					}
				});
				caller.start();
				cancel = () -> {
					caller.interrupt();
					// the caller's thread cancels the turn when it sees the interrupt:
					// only
					// then may the hook it waits for be released
					joinUninterruptibly(caller);
				};
			}
			else {
				cancel = request.stream().content().subscribe((chunk) -> {
				}, (ex) -> {
				})::dispose;
			}
			await().atMost(Duration.ofSeconds(60)).until(() -> hooks.preflight.contains("A1"));
			cancel.run();
			release.countDown();
			// the first hook's thread ends when it returns; no hook starts after it
			Thread firstHook = hooks.threads.get(0);
			firstHook.join(Duration.ofSeconds(60).toMillis());
			assertThat(firstHook.isAlive()).isFalse();
			assertThat(hooks.preflight).containsExactly("A1");
			assertThat(tools.ran).isEmpty();
		});
	}

	@Test
	void theCircuitBreakerCountsEachInvocationOfABatch() {
		this.openAi.reply(batch(6), batch(6), batch(6));
		this.contextRunner
			.withPropertyValues("mantle.hooks.circuit-breaker.minimum-number-of-calls=4",
					"mantle.hooks.circuit-breaker.sliding-window-type=count-based",
					"mantle.hooks.circuit-breaker.sliding-window-size=4",
					"mantle.hooks.circuit-breaker.failure-rate-threshold=50",
					"mantle.hooks.circuit-breaker.wait-duration-in-open-state=1h")
			.run((context) -> {
				BatchHooks hooks = context.getBean(BatchHooks.class);
				hooks.call = (call) -> {
					if ("A3".equals(call.arguments().get("id")) || hooks.preflight.size() > 3) {
						throw new IllegalStateException("policy store down");
					}
					return call;
				};
				// A1 and A2 pass, A3 crashes: three calls recorded
				assertThat(ask(context, new LookupTools(), "call")).isEqualTo(TOOL_ERROR);
				// A1 crashes: the fourth call recorded, half of them failed
				assertThat(ask(context, new LookupTools(), "call")).isEqualTo(TOOL_ERROR);
				assertThat(hooks.preflight).containsExactly("A1", "A2", "A3", "A1");
				HookMethod hook = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.TOOL_CALL);
				assertThat(hook).isNotNull();
				assertThat(hook.circuitBreaker()).isNotNull();
				assertThat(hook.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.OPEN);
				// the open breaker fails the next batch closed without calling the hook
				LookupTools tools = new LookupTools();
				assertThat(ask(context, tools, "call")).isEqualTo(TOOL_ERROR);
				assertThat(hooks.preflight).hasSize(4);
				assertThat(tools.ran).isEmpty();
				assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, 2L)
					.containsEntry(HookOutcome.CRASH, 2L)
					.containsEntry(HookOutcome.CIRCUIT_OPEN, 1L);
			});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "interruptible", "ignoring interrupts" })
	void aHangOnTheThirdCallTimesOutAndClosesTheBatch(String hang) {
		this.openAi.reply(batch(6));
		CountDownLatch release = new CountDownLatch(1);
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook[batchHooks.preflight]=2s").run((context) -> {
			BatchHooks hooks = context.getBean(BatchHooks.class);
			hooks.call = (call) -> {
				if ("A3".equals(call.arguments().get("id"))) {
					if (hang.equals("interruptible")) {
						hooks.interrupted.add(awaitInterrupt(release));
					}
					else {
						Stalls.awaitIgnoringInterrupts(release, 120_000);
					}
				}
				return call;
			};
			try {
				LookupTools tools = new LookupTools();
				ChatClientResponse response = lookUp(context, tools).call().chatClientResponse();
				// the turn answered while the hook that ignores interrupts is still held
				assertThat(release.getCount()).isOne();
				assertThat(text(response)).isEqualTo(TOOL_ERROR);
				assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
				assertThat(hooks.preflight).containsExactly("A1", "A2", "A3");
				assertThat(tools.ran).isEmpty();
				assertThat(this.openAi.requests()).hasSize(1);
				if (hang.equals("interruptible")) {
					await().atMost(Duration.ofSeconds(60)).until(() -> !hooks.interrupted.isEmpty());
					assertThat(hooks.interrupted).containsExactly(true);
				}
			}
			finally {
				release.countDown();
			}
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "crash", "error", "null" })
	void aFailureOnTheThirdCallClosesTheBatchAndNoToolRuns(String fault) {
		this.openAi.reply(batch(6));
		this.contextRunner.run((context) -> {
			BatchHooks hooks = context.getBean(BatchHooks.class);
			hooks.call = (call) -> {
				if (!"A3".equals(call.arguments().get("id"))) {
					return call;
				}
				return switch (fault) {
					case "crash" -> throw new IllegalStateException("policy store at 10.0.0.7 is down");
					case "error" -> throw new StackOverflowError();
					default -> null;
				};
			};
			LookupTools tools = new LookupTools();
			ChatClientResponse response = lookUp(context, tools).call().chatClientResponse();
			assertThat(text(response)).isEqualTo(TOOL_ERROR);
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(hooks.preflight).containsExactly("A1", "A2", "A3");
			assertThat(tools.ran).isEmpty();
			assertThat(this.openAi.requests()).hasSize(1);
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aRetryOnTheThirdCallDiscardsTheBatch(String driver) {
		this.openAi.reply(batch(6), Reply.text("Which orders do you mean?"));
		this.contextRunner.run((context) -> {
			BatchHooks hooks = context.getBean(BatchHooks.class);
			hooks.call = (call) -> {
				if ("A3".equals(call.arguments().get("id"))) {
					throw new RetryModel("Ask which orders first.");
				}
				return call;
			};
			LookupTools tools = new LookupTools();
			assertThat(ask(context, tools, driver)).isEqualTo("Which orders do you mean?");
			assertThat(hooks.preflight).containsExactly("A1", "A2", "A3");
			assertThat(tools.ran).isEmpty();
			assertThat(this.openAi.messages(1)).containsExactly("user: Look them up",
					"system: Ask which orders first.");
		});
	}

	@Test
	void aRefusalOfTheThirdCallRunsTheOthersAndTheModelReadsIt() {
		this.openAi.reply(batch(5), Reply.text("A3 is closed."));
		this.contextRunner.run((context) -> {
			BatchHooks hooks = context.getBean(BatchHooks.class);
			hooks.call = (call) -> "A3".equals(call.arguments().get("id")) ? call.withRefusal("A3 is archived") : call;
			LookupTools tools = new LookupTools();
			assertThat(ask(context, tools, "call")).isEqualTo("A3 is closed.");
			assertThat(hooks.preflight).containsExactlyElementsOf(ids(5));
			assertThat(tools.ran).containsExactly("A1", "A2", "A4", "A5");
			assertThat(this.openAi.messages(1)).containsSubsequence("tool: \"A2 found\"", "tool: A3 is archived",
					"tool: \"A4 found\"");
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "completed", "pending" })
	void anAsynchronousToolCallHookJudgesEveryCallInBatchOrder(String stage) {
		int size = 8;
		this.openAi.reply(batch(size), Reply.text("All found."));
		ChatTestSupport.contextRunner(this.openAi)
			.withBean(MantleHooksAutoConfiguration.HOOK_EXECUTOR_BEAN_NAME, AsyncTaskExecutor.class,
					ToolBatchHandOffTests::threadPerTask)
			.withBean("asyncHooks", AsyncHooks.class)
			.run((context) -> {
				AsyncHooks hooks = context.getBean(AsyncHooks.class);
				hooks.pending = stage.equals("pending");
				LookupTools tools = new LookupTools();
				assertThat(ask(context, tools, "call")).isEqualTo("All found.");
				assertThat(hooks.preflight).containsExactlyElementsOf(ids(size));
				// every id carries the hook's mark, whoever completed the stage
				assertThat(tools.ran).containsExactlyElementsOf(ids(size).stream().map((id) -> id + "!").toList());
			});
	}

	@Test
	void eachCallsArgumentsAreParsedOnceForAllItsHooks() {
		this.openAi.reply(batch(3), Reply.text("All found."));
		ChatTestSupport.contextRunner(this.openAi).withBean("argumentHooks", ArgumentHooks.class).run((context) -> {
			ArgumentHooks hooks = context.getBean(ArgumentHooks.class);
			assertThat(ask(context, new LookupTools(), "call")).isEqualTo("All found.");
			assertThat(hooks.callArguments).hasSize(3);
			assertThat(hooks.resultArguments).hasSize(3);
			for (int i = 0; i < 3; i++) {
				// the result hook gets the very map the call hook got: the model's JSON
				// text was read once, not once per hook
				assertThat(hooks.resultArguments.get(i)).isSameAs(hooks.callArguments.get(i))
					.isEqualTo(Map.of("id", "A" + (i + 1)));
			}
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "call", "stream" })
	void aBurstOfBatchesNeverSkipsAHealthyToolCallHook(String driver) {
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withPropertyValues("mantle.hooks.timeouts.modify=120s", "mantle.hooks.timeouts.observe=120s")
			.withBean(BatchModel.class)
			.withBean("burstHooks", BurstHooks.class)
			.run((context) -> {
				BurstHooks hooks = context.getBean(BurstHooks.class);
				List<String> replies = burstOfBatches(context, BURST, driver);
				for (int i = 0; i < BURST; i++) {
					// each id was upper-cased by the hook: no call skipped it, none
					// failed
					// open or closed
					List<String> found = new ArrayList<>();
					for (int call = 0; call < CALLS; call++) {
						found.add("T" + i + "-" + call + " found");
					}
					assertThat(replies.get(i)).as("reply of turn " + i).isEqualTo(String.join(", ", found));
				}
				HookMethod hook = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.TOOL_CALL);
				assertThat(hook).isNotNull();
				assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, (long) BURST * CALLS);
				assertThat(hook.outcomeCounts().values().stream().mapToLong(Long::longValue).sum())
					.isEqualTo((long) BURST * CALLS);
				assertThat(hook.rejectedInvocations()).isZero();
				// the burst really was one: more batches in preflight at once than
				// max-concurrent (64)
				assertThat(hooks.mostAtOnce.get()).isGreaterThanOrEqualTo(WAVE);
			});
	}

	/**
	 * Ask {@code turns} turns at once, turn N asking {@link BatchModel} for its batch of
	 * lookups, and return their replies in turn order.
	 * @param context a context with a {@link BatchModel}
	 * @param turns how many turns
	 * @param driver {@code call} or {@code stream}
	 * @return each turn's reply
	 * @throws Exception if a turn failed or the burst did not finish in five minutes
	 */
	static List<String> burstOfBatches(AssertableApplicationContext context, int turns, String driver)
			throws Exception {
		ChatClient chatClient = ChatTestSupport.chatClient(context);
		return Callers.burst(turns, (turn) -> {
			ChatClient.ChatClientRequestSpec request = chatClient.prompt()
				.user("turn " + turn)
				.tools(new LookupTools());
			return driver.equals("call") ? request.call().content()
					: String.join("", request.stream().content().collectList().block());
		});
	}

	private static void joinUninterruptibly(Thread thread) {
		try {
			thread.join(Duration.ofSeconds(60).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		assertThat(thread.isAlive()).as("the cancelled caller returned").isFalse();
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		boolean interrupted = false;
		while (true) {
			try {
				latch.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	static Reply batch(int size) {
		ToolCall[] calls = new ToolCall[size];
		for (int i = 0; i < size; i++) {
			calls[i] = new ToolCall("call_" + (i + 1), "lookup", "{\"id\":\"A" + (i + 1) + "\"}");
		}
		return Reply.toolCalls(calls);
	}

	static List<String> ids(int size) {
		List<String> ids = new ArrayList<>(size);
		for (int i = 1; i <= size; i++) {
			ids.add("A" + i);
		}
		return ids;
	}

	static String ask(AssertableApplicationContext context, LookupTools tools, String driver) {
		ChatClient.ChatClientRequestSpec request = lookUp(context, tools);
		if (driver.equals("call")) {
			return request.call().content();
		}
		List<String> chunks = request.stream().content().collectList().block(Duration.ofSeconds(60));
		assertThat(chunks).isNotNull();
		return String.join("", chunks);
	}

	private static ChatClient.ChatClientRequestSpec lookUp(AssertableApplicationContext context, LookupTools tools) {
		return chatClient(context).prompt().user("Look them up").tools(tools);
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	/**
	 * Wait until released or interrupted.
	 * @return whether the wait ended with an interrupt
	 */
	private static boolean awaitInterrupt(CountDownLatch release) {
		try {
			release.await();
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return true;
		}
	}

	/**
	 * A fresh thread per task, as the default hook executor on Java 21 and later.
	 */
	static AsyncTaskExecutor threadPerTask() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor(HOOK_THREAD);
		executor.setDaemon(true);
		return executor;
	}

	/**
	 * Answers a user's "turn N" with {@link #CALLS} lookups of that turn's orders at
	 * once, and the tool results with their values joined.
	 */
	static class BatchModel implements ChatModel {

		@Override
		public ChatOptions getOptions() {
			return ToolCallingChatOptions.builder().build();
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			List<Message> messages = prompt.getInstructions();
			if (messages.get(messages.size() - 1) instanceof ToolResponseMessage tool) {
				String joined = String.join(", ",
						tool.getResponses()
							.stream()
							.map((response) -> response.responseData().replace("\"", ""))
							.toList());
				return new ChatResponse(List.of(new Generation(new AssistantMessage(joined))));
			}
			String turn = prompt.getUserMessage().getText().replaceAll("\\D", "");
			List<AssistantMessage.ToolCall> calls = new ArrayList<>();
			for (int call = 0; call < CALLS; call++) {
				calls.add(new AssistantMessage.ToolCall("call_" + call, "function", "lookup",
						"{\"id\":\"t" + turn + "-" + call + "\"}"));
			}
			return new ChatResponse(
					List.of(new Generation(AssistantMessage.builder().content("").toolCalls(calls).build())));
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.defer(() -> Flux.just(call(prompt)));
		}

	}

	/**
	 * A healthy tool-call hook that upper-cases each id; its first {@link #WAVE}
	 * invocations wait for each other, so more batches are in preflight at once than
	 * {@code max-concurrent}.
	 */
	static class BurstHooks {

		final AtomicInteger mostAtOnce = new AtomicInteger();

		private final AtomicInteger running = new AtomicInteger();

		private final CountDownLatch wave = new CountDownLatch(WAVE);

		@ModifyToolCall(timeoutMs = 120_000)
		ToolCallPayload upperCase(ToolCallPayload payload) {
			this.mostAtOnce.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			try {
				this.wave.countDown();
				this.wave.await(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.running.decrementAndGet();
			}
			return payload.withArguments(Map.of("id", String.valueOf(payload.arguments().get("id")).toUpperCase()));
		}

	}

	/**
	 * A tool-call hook that records each call it judges and the thread it ran on, and a
	 * tool-call observer.
	 */
	static class BatchHooks {

		final List<String> preflight = new CopyOnWriteArrayList<>();

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		final List<String> observed = new CopyOnWriteArrayList<>();

		final List<Boolean> interrupted = new CopyOnWriteArrayList<>();

		volatile UnaryOperator<ToolCallPayload> call = UnaryOperator.identity();

		@ModifyToolCall(timeoutMs = 120_000)
		ToolCallPayload preflight(ToolCallPayload payload) {
			this.threads.add(Thread.currentThread());
			this.preflight.add(String.valueOf(payload.arguments().get("id")));
			return this.call.apply(payload);
		}

		@OnToolCall
		void seen(ToolCallPayload payload) {
			this.observed.add(String.valueOf(payload.arguments().get("id")));
		}

	}

	/**
	 * An asynchronous tool-call hook that marks each id: its stage is complete when it
	 * returns, or completed later on another thread.
	 */
	static class AsyncHooks {

		final List<String> preflight = new CopyOnWriteArrayList<>();

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		volatile boolean pending;

		@ModifyToolCall(timeoutMs = 120_000)
		CompletionStage<ToolCallPayload> mark(ToolCallPayload payload) {
			this.threads.add(Thread.currentThread());
			String id = String.valueOf(payload.arguments().get("id"));
			this.preflight.add(id);
			ToolCallPayload marked = payload.withArguments(Map.of("id", id + "!"));
			if (!this.pending) {
				return CompletableFuture.completedFuture(marked);
			}
			return CompletableFuture.supplyAsync(() -> {
				Stalls.sleep(5);
				return marked;
			});
		}

	}

	/**
	 * A tool-call and a tool-result hook that keep the arguments each was given.
	 */
	static class ArgumentHooks {

		final List<Map<String, Object>> callArguments = new CopyOnWriteArrayList<>();

		final List<Map<String, Object>> resultArguments = new CopyOnWriteArrayList<>();

		@ModifyToolCall(timeoutMs = 120_000)
		ToolCallPayload call(ToolCallPayload payload) {
			this.callArguments.add(payload.arguments());
			return payload;
		}

		@ModifyToolResult(timeoutMs = 120_000)
		ToolResultPayload result(ToolResultPayload payload) {
			this.resultArguments.add(payload.arguments());
			return payload;
		}

	}

	static class LookupTools {

		final List<String> ran = new CopyOnWriteArrayList<>();

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			this.ran.add(id);
			return id + " found";
		}

	}

}
