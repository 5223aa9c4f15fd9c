package io.mantlehooks.runtime.execution;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.Channel;
import io.mantlehooks.HookFailure;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyKnowledgeQuery;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.Signals;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The hook runner as a caller sees it: which payload to continue with, which signal,
 * which failure and fail policy, and what observers can and cannot do.
 */
@ExtendWith(OutputCaptureExtension.class)
class HookRunnerTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final Map<String, Object> CALL = Map.of("callId", "c-1");

	private static final Channel CHANNEL = new Channel("rest", Map.of("client", "web"));

	/**
	 * Hooks meant to succeed get far more time than a loaded machine needs; the tests of
	 * timeouts set short ones for the hooks meant to time out.
	 */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
		.withPropertyValues("mantle.hooks.timeouts.observe=60s", "mantle.hooks.timeouts.modify=60s");

	@Test
	void modifyRewritesMutableFieldsAndRestoresIdentity() {
		this.contextRunner.withBean("identityThief", IdentityThief.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			IncomingMessagePayload input = incoming("hello");
			ModifyResult<IncomingMessagePayload> result = runner.runAndWait(HookPoint.INCOMING_MESSAGE, input,
					HookScope.none());
			assertThat(result).isEqualTo(
					new ModifyResult.Proceed<>(new IncomingMessagePayload("HELLO", "m-1", "user-42", CALL, CHANNEL)));
		});
	}

	@Test
	void modifyWithoutModifierProceedsWithTheSamePayloadAndNoThreadHop() {
		this.contextRunner.withUserConfiguration(CountingExecutorConfiguration.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			IncomingMessagePayload input = incoming("hello");
			ModifyResult<IncomingMessagePayload> result = runner.runAndWait(HookPoint.INCOMING_MESSAGE, input,
					HookScope.none());
			runner.observe(HookPoint.INCOMING_MESSAGE, input, HookScope.none());
			assertThat(result).isInstanceOfSatisfying(ModifyResult.Proceed.class,
					(proceed) -> assertThat(proceed.payload()).isSameAs(input));
			assertThat(context.getBean(CountingExecutorConfiguration.class).tasks).hasValue(0);
		});
	}

	@Test
	void crashAtFailClosedPointIsReportedWithClosedPolicy(CapturedOutput output) {
		this.contextRunner.withBean("crashingRequestHook", CrashingRequestHook.class).run((context) -> {
			ModifyResult<ModelRequestPayload> result = context.getBean(HookRunner.class)
				.runAndWait(HookPoint.MODEL_REQUEST, request(), HookScope.none());
			assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class, (failed) -> {
				assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.CLOSED);
				assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.CRASH);
				assertThat(failed.failure().hookName()).isEqualTo("crashingRequestHook.cool");
				assertThat(failed.failure().cause()).hasMessage("model settings store unavailable");
			});
		});
		assertThat(output).containsOnlyOnce(
				"Modify hook 'crashingRequestHook.cool' at point model-request failed; applying the fail policy CLOSED");
	}

	@Test
	void crashAtFailOpenPointIsReportedWithOpenPolicy() {
		this.contextRunner.withBean("crashingResponseHook", CrashingResponseHook.class).run((context) -> {
			ModifyResult<ModelResponsePayload> result = context.getBean(HookRunner.class)
				.runAndWait(HookPoint.MODEL_RESPONSE, response("hi"), HookScope.none());
			assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
					(failed) -> assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.OPEN));
		});
	}

	@Test
	void timeoutIsReportedAndInterruptsTheHookThread(CapturedOutput output) {
		this.contextRunner.withBean("slowToolResultHook", SlowToolResultHook.class).run((context) -> {
			ModifyResult<ToolResultPayload> result = context.getBean(HookRunner.class)
				.runAndWait(HookPoint.TOOL_RESULT, toolResult("42"), HookScope.none());
			assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class, (failed) -> {
				assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT);
				assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.OPEN);
			});
			assertThat(context.getBean(SlowToolResultHook.class).interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS))
				.as("hook thread interrupted")
				.isTrue();
		});
		assertThat(output)
			.contains("Modify hook 'slowToolResultHook.redact' at point tool-result timed out after 100ms");
	}

	@Test
	void nullReturnIsInvalid() {
		this.contextRunner.withBean("nullOutgoingHook", NullOutgoingHook.class).run((context) -> {
			ModifyResult<OutgoingTextPayload> result = context.getBean(HookRunner.class)
				.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
			assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
					(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.INVALID_RETURN));
		});
	}

	@Test
	void signalAtPointThatDoesNotSupportItIsDiscardedAndTheInputContinues(CapturedOutput output) {
		this.contextRunner.withBean("wrongPointSignalHook", WrongPointSignalHook.class).run((context) -> {
			ModelRequestPayload input = request();
			ModifyResult<ModelRequestPayload> result = context.getBean(HookRunner.class)
				.runAndWait(HookPoint.MODEL_REQUEST, input, HookScope.none());
			assertThat(result).isEqualTo(new ModifyResult.Proceed<>(input));
		});
		assertThat(output).contains("Modify hook 'wrongPointSignalHook.cool' at point model-request raised RetryModel, "
				+ "which model-request does not support; the signal is discarded");
	}

	@Test
	void supportedSignalIsHandedToTheCaller() {
		this.contextRunner.withBean("retryingResponseHook", RetryingResponseHook.class)
			.withBean("rejectingIncomingHook", RejectingIncomingHook.class)
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				assertThat(runner.runAndWait(HookPoint.MODEL_RESPONSE, response("ungrounded"), HookScope.none()))
					.isInstanceOfSatisfying(ModifyResult.Signalled.class,
							(signalled) -> assertThat(signalled.signal()).isInstanceOfSatisfying(RetryModel.class,
									(retry) -> assertThat(retry.feedback()).isEqualTo("Cite a passage.")));
				assertThat(runner.runAndWait(HookPoint.INCOMING_MESSAGE, incoming("buy spam"), HookScope.none()))
					.isInstanceOfSatisfying(ModifyResult.Signalled.class, (signalled) -> assertThat(signalled.signal())
						.isInstanceOfSatisfying(HookRejection.class, (rejection) -> {
							assertThat(rejection.reason()).isEqualTo("spam");
							assertThat(rejection.responseMessage()).contains("utter_spam_rejected");
						}));
			});
	}

	@Test
	void completionStageHookIsAwaited() {
		this.contextRunner.withBean("asyncHooks", AsyncHooks.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			assertThat(runner.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("  padded  "), HookScope.none()))
				.isEqualTo(new ModifyResult.Proceed<>(outgoing("padded")));
			assertThat(runner.runAndWait(HookPoint.TOOL_CALL, toolCall("delete_account"), HookScope.none()))
				.isInstanceOfSatisfying(ModifyResult.Signalled.class,
						(signalled) -> assertThat(signalled.signal()).isInstanceOf(RetryModel.class));
		});
	}

	@Test
	void monoHookIsAwaitedAndTimedOut() {
		this.contextRunner.withBean("reactiveHooks", ReactiveHooks.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			assertThat(runner.runAndWait(HookPoint.KNOWLEDGE_QUERY, knowledgeQuery("1234"), HookScope.none()))
				.isEqualTo(new ModifyResult.Proceed<>(knowledgeQuery("ticket 1234")));
			assertThat(runner.runAndWait(HookPoint.KNOWLEDGE_QUERY, knowledgeQuery("never"), HookScope.none()))
				.isInstanceOfSatisfying(ModifyResult.Failed.class,
						(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT));
			assertThat(runner.runAndWait(HookPoint.KNOWLEDGE_QUERY, knowledgeQuery("empty"), HookScope.none()))
				.isInstanceOfSatisfying(ModifyResult.Failed.class,
						(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.INVALID_RETURN));
		});
	}

	@Test
	void lazyMonoHookRunsOffTheCallerThreadAndTimesOut() {
		this.contextRunner.withBean("lazyMonoHook", LazyMonoHook.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			ModifyResult<OutgoingTextPayload> result = runner.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("hi"),
					HookScope.none());
			assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
					(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT));
			LazyMonoHook hook = context.getBean(LazyMonoHook.class);
			await().atMost(WAIT).until(() -> hook.thread.get() != null);
			assertThat(hook.thread.get()).isNotEqualTo(Thread.currentThread().getName());
		});
	}

	@Test
	void asyncObserverTimeoutIsReportedAsTimeoutAndReleasesItsSlot(CapturedOutput output) {
		this.contextRunner.withBean("neverObserver", NeverObserver.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=100ms", "mantle.hooks.observers.max-concurrent=1")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("again"), HookScope.none());
				assertThat(runner.getDroppedObserverInvocations()).isZero();
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
			});
		assertThat(output).contains("Observe hook 'neverObserver.watch' at point outgoing-text timed out after 100ms")
			.doesNotContain("Observe hook 'neverObserver.watch' at point outgoing-text failed");
	}

	@Test
	void observeReturnsWithoutWaitingForObservers() {
		this.contextRunner.withBean("blockingObserver", BlockingObserver.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=5s")
			.run((context) -> {
				BlockingObserver observer = context.getBean(BlockingObserver.class);
				context.getBean(HookRunner.class).observe(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
				// observe() has returned while the observer is still blocked on its latch
				assertThat(observer.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(observer.finished.getCount()).isOne();
				observer.release.countDown();
				assertThat(observer.finished.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			});
	}

	@Test
	void bothLanesTimeoutsCountFromTheHooksStartNotFromItsHandOff() {
		// every task waits 3 s for a thread, far past both 1 s timeouts; the hooks' own
		// work takes far less than their second
		this.contextRunner.withUserConfiguration(SlowStartExecutorConfiguration.class)
			.withBean("crashingResponseHook", CrashingResponseHook.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=1s", "mantle.hooks.timeouts.modify=1s")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				SlowStartExecutorConfiguration.Observer observer = context
					.getBean(SlowStartExecutorConfiguration.Observer.class);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("late but seen"), HookScope.none());
				assertThat(observer.seen.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("late but seen");
				ModifyResult<ModelResponsePayload> result = runner.runAndWait(HookPoint.MODEL_RESPONSE, response("hi"),
						HookScope.none());
				// the wait was the machine's: the hook ran and its own outcome counts
				assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
						(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.CRASH));
			});
	}

	@Test
	void aBusyObserverIsNeverDroppedHoweverManyOfItsInvocationsRunAtOnce() {
		this.contextRunner.withBean("blockingObserver", BlockingObserver.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=30s", "mantle.hooks.observers.max-concurrent=2")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				BlockingObserver observer = context.getBean(BlockingObserver.class);
				for (int i = 0; i < 10; i++) {
					runner.observe(HookPoint.OUTGOING_TEXT, outgoing("hi " + i), HookScope.none());
				}
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 10);
				observer.release.countDown();
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
				assertThat(observer.calls).hasValue(10);
				assertThat(runner.getDroppedObserverInvocations()).isZero();
			});
	}

	@Test
	void oneStragglerLimitsNothing() {
		// a slow input that makes one call overrun (a runaway regular expression) must
		// not switch the guardrail off for everyone else
		this.contextRunner.withBean("stragglingHook", StragglingHook.class)
			// the same hook is the straggler and the healthy calls: a timeout the healthy
			// ones never reach on a loaded machine, which the straggler waits out once
			.withPropertyValues("mantle.hooks.modify.max-concurrent=2", "mantle.hooks.timeouts.modify=10s")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				StragglingHook hook = context.getBean(StragglingHook.class);
				HookMethod method = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.OUTGOING_TEXT);
				try {
					ModifyResult<OutgoingTextPayload> stalled = runner.runAndWait(HookPoint.OUTGOING_TEXT,
							outgoing("stall"), HookScope.none());
					assertThat(stalled).isInstanceOfSatisfying(ModifyResult.Failed.class,
							(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT));
					assertThat(method.abandonedInFlight()).isOne();
					List<CompletableFuture<ModifyResult<OutgoingTextPayload>>> healthy = new ArrayList<>();
					for (int i = 0; i < StragglingHook.AT_ONCE; i++) {
						healthy.add(runner.run(HookPoint.OUTGOING_TEXT, outgoing("hi " + i), HookScope.none()));
					}
					for (int i = 0; i < StragglingHook.AT_ONCE; i++) {
						String expected = "hi " + i + " ok";
						assertThat(healthy.get(i).join()).isInstanceOfSatisfying(ModifyResult.Proceed.class,
								(proceed) -> assertThat(((OutgoingTextPayload) proceed.payload()).text())
									.isEqualTo(expected));
					}
					assertThat(hook.mostAtOnce).hasValue(StragglingHook.AT_ONCE);
					assertThat(method.rejectedInvocations()).isZero();
				}
				finally {
					hook.release.countDown();
				}
				await().atMost(WAIT).until(() -> method.abandonedInFlight() == 0);
			});
	}

	@Test
	void aHungObserverHoldsAtMostItsLimitAndFurtherInvocationsAreDroppedAndCounted() {
		this.contextRunner.withBean("hungObserver", HungObserver.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=100ms", "mantle.hooks.observers.max-concurrent=2")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				HungObserver observer = context.getBean(HungObserver.class);
				HookMethod hook = context.getBean(HookRegistry.class)
					.everyAgent()
					.observers(HookPoint.OUTGOING_TEXT)
					.get(0);
				try {
					runner.observe(HookPoint.OUTGOING_TEXT, outgoing("first"), HookScope.none());
					// it ignores the interrupt of its timeout: abandoned, still running
					await().atMost(WAIT).until(() -> hook.abandonedInFlight() == 1);
					// one straggler limits nothing: the hook is hung only at its limit of
					// abandoned invocations
					runner.observe(HookPoint.OUTGOING_TEXT, outgoing("second"), HookScope.none());
					await().atMost(WAIT).until(() -> hook.abandonedInFlight() == 2);
					runner.observe(HookPoint.OUTGOING_TEXT, outgoing("third"), HookScope.none());
					assertThat(runner.getDroppedObserverInvocations()).isOne();
					assertThat(runner.getObserversInFlight()).isEqualTo(2);
					assertThat(hook.bulkhead().getMetrics().getAvailableConcurrentCalls()).isZero();
				}
				finally {
					observer.release.countDown();
				}
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
				assertThat(hook.abandonedInFlight()).isZero();
				assertThat(hook.bulkhead().getMetrics().getAvailableConcurrentCalls()).isEqualTo(2);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("after"), HookScope.none());
				await().atMost(WAIT).until(() -> observer.seen.contains("after"));
				assertThat(observer.seen).containsExactlyInAnyOrder("first", "second", "after");
				assertThat(runner.getDroppedObserverInvocations()).isOne();
			});
	}

	@Test
	void observerTimeoutInterruptsItAndReleasesItsSlot(CapturedOutput output) {
		this.contextRunner.withBean("blockingObserver", BlockingObserver.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=100ms", "mantle.hooks.observers.max-concurrent=1")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				BlockingObserver observer = context.getBean(BlockingObserver.class);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
				assertThat(observer.interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
				assertThat(runner.getDroppedObserverInvocations()).isZero();
			});
		assertThat(output)
			.containsOnlyOnce("Observe hook 'blockingObserver.watch' at point outgoing-text timed out after 100ms");
	}

	@Test
	void anObservationHandlerThatThrowsAtAnObserversEndNeitherSparesItsTimeoutNorEndsTheSweeps() {
		// the handler throws on the deadline sweep's thread, which ends the observer's
		// timed-out invocation: the hook is still interrupted, and later timeouts fire
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ThrowingHandler());
		this.contextRunner.withBean("sleepingObserver", SleepingObserver.class)
			.withBean(ObservationRegistry.class, () -> observations)
			.withPropertyValues("mantle.hooks.timeouts.observe=100ms", "mantle.hooks.observers.max-concurrent=1")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				SleepingObserver observer = context.getBean(SleepingObserver.class);
				for (int turn = 1; turn <= 2; turn++) {
					runner.observe(HookPoint.OUTGOING_TEXT, outgoing("turn " + turn), HookScope.none());
					int interrupted = turn;
					await().atMost(WAIT)
						.until(() -> observer.interrupted.get() == interrupted && runner.getObserversInFlight() == 0);
				}
				assertThat(runner.getDroppedObserverInvocations()).isZero();
			});
	}

	@Test
	void aTurnContextThatCannotBeEnteredIsTheHooksFailureAtOnceNotATimeout(CapturedOutput output) {
		// the binding throws before the hook is called: the modify hook fails by its
		// policy without waiting out its ten-minute timeout, and the observer is
		// reported and released, though its drain moved on
		HookScope broken = HookScope.of("turn-1", CallerContext.empty()).withBinding((hookName) -> {
			throw new IllegalStateException("binding broken");
		});
		this.contextRunner.withBean("unreachableHooks", UnreachableHooks.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=10m")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				ModifyResult<OutgoingTextPayload> result = runner.run(HookPoint.OUTGOING_TEXT, outgoing("hi"), broken)
					.get(WAIT.toSeconds(), TimeUnit.SECONDS);
				assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
						(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.CRASH));
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
				assertThat(context.getBean(UnreachableHooks.class).calls).hasValue(0);
			});
		assertThat(output).contains("Observe hook 'unreachableHooks.watch' at point outgoing-text failed");
	}

	@Test
	void aStageWhoseCancellationThrowsDoesNotEndTheTimeoutsOfLaterHooks(CapturedOutput output) {
		this.contextRunner.withBean("uncancellableHook", UncancellableHook.class)
			.withBean("sleepingObserver", SleepingObserver.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=100ms")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				for (int turn = 1; turn <= 2; turn++) {
					assertThat(runner.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("turn " + turn), HookScope.none()))
						.isInstanceOfSatisfying(ModifyResult.Failed.class,
								(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT));
					int interrupted = turn;
					await().atMost(WAIT)
						.until(() -> context.getBean(SleepingObserver.class).interrupted.get() == interrupted);
				}
			});
		assertThat(output).contains("Timing out hook 'uncancellableHook.never' failed");
	}

	@Test
	void observerCrashesAndSignalsAreLoggedOnceAndDiscarded(CapturedOutput output) {
		this.contextRunner.withBean("failingObservers", FailingObservers.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			ModelRequestPayload input = request();
			runner.observe(HookPoint.MODEL_REQUEST, input, HookScope.none());
			runner.observe(HookPoint.TOOL_CALL, toolCall("lookup"), HookScope.none());
			await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
			await().atMost(WAIT).until(() -> output.toString().contains("failingObservers.signal"));
		});
		assertThat(output).containsOnlyOnce("Observe hook 'failingObservers.crash' at point model-request failed")
			.containsOnlyOnce("Observe hook 'failingObservers.signal' at point tool-call raised RetryModel, "
					+ "but observe hooks support no control signal; discarded");
	}

	@Test
	void observersCannotChangeWhatTheTurnHolds() {
		this.contextRunner.withBean("mutatingObserver", MutatingObserver.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			MutatingObserver observer = context.getBean(MutatingObserver.class);
			UserMessage message = UserMessage.builder().text("hi").metadata(new HashMap<>(Map.of("k", "v"))).build();
			ModelRequestPayload input = request().withMessages(List.of(message));
			runner.observe(HookPoint.MODEL_REQUEST, input, HookScope.none());
			assertThat(observer.done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			// the messages are frozen: the change is refused, the observer fails alone
			assertThat(observer.mutatedCopy).hasValue(false);
			assertThat(message.getMetadata()).containsEntry("k", "v").doesNotContainValue("tampered");
			assertThat(input.messages().get(0).getMetadata()).containsEntry("k", "v").doesNotContainValue("tampered");
			assertThat(input.messages()).containsExactly(message);
		});
	}

	@Test
	void observersNeverSeeToolCallMetadata() {
		this.contextRunner.withBean("toolCallWatcher", ToolCallWatcher.class).run((context) -> {
			ToolCallPayload call = toolCall("get_document").withMetadata(Map.of("document_ref", "upload-123"));
			context.getBean(HookRunner.class).observe(HookPoint.TOOL_CALL, call, HookScope.none());
			ToolCallWatcher watcher = context.getBean(ToolCallWatcher.class);
			assertThat(watcher.done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(watcher.seen.get().metadata()).isEmpty();
			assertThat(watcher.seen.get().toolName()).isEqualTo("get_document");
		});
	}

	@Test
	void mdcAndCurrentObservationReachHookThreads() {
		ObservationRegistry observations = ObservationRegistry.create();
		// a registry with a handler, as with tracing: its observations are real,
		// not no-ops
		observations.observationConfig().observationHandler((context) -> true);
		this.contextRunner
			.withBean("contextReadingHook", ContextReadingHook.class, () -> new ContextReadingHook(observations))
			.run((context) -> {
				Observation turn = Observation.start("chat.turn", observations);
				MDC.put("requestId", "req-7");
				try (Observation.Scope scope = turn.openScope()) {
					ModifyResult<ModelRequestPayload> result = context.getBean(HookRunner.class)
						.runAndWait(HookPoint.MODEL_REQUEST, request(),
								HookScope.of("turn-7", CallerContext.capture()));
					assertThat(result).isInstanceOf(ModifyResult.Proceed.class);
				}
				finally {
					MDC.remove("requestId");
					turn.stop();
				}
				ContextReadingHook hook = context.getBean(ContextReadingHook.class);
				assertThat(hook.threadName.get()).startsWith("mantle-hook-");
				assertThat(hook.requestId.get()).isEqualTo("req-7");
				assertThat(hook.turnId.get()).isEqualTo("turn-7");
				assertThat(hook.observation.get()).isSameAs(turn);
			});
	}

	static IncomingMessagePayload incoming(String text) {
		return new IncomingMessagePayload(text, "m-1", "user-42", CALL, CHANNEL);
	}

	static ModelRequestPayload request() {
		return new ModelRequestPayload(List.<Message>of(new UserMessage("hi")), ModelSettings.empty(),
				List.of("lookup"), 1, "user-42", CALL, CHANNEL);
	}

	static ModelResponsePayload response(String text) {
		return new ModelResponsePayload(text, List.of(), 12L, "user-42", CALL, CHANNEL);
	}

	static OutgoingTextPayload outgoing(String text) {
		return new OutgoingTextPayload(text, false, "user-42", CALL, CHANNEL);
	}

	static ToolCallPayload toolCall(String toolName) {
		return new ToolCallPayload(toolName, Map.of("id", 7), Map.of(), Map.of(), "user-42", CALL, CHANNEL);
	}

	static ToolResultPayload toolResult(String value) {
		return new ToolResultPayload("lookup", Map.of("id", 7), value, false, "user-42", CALL, CHANNEL);
	}

	static KnowledgeQueryPayload knowledgeQuery(String query) {
		return new KnowledgeQueryPayload(query, "user-42", CALL, CHANNEL);
	}

	static class IdentityThief {

		@ModifyIncomingMessage
		IncomingMessagePayload shout(IncomingMessagePayload message) {
			return new IncomingMessagePayload(message.text().toUpperCase(), "forged-id", "attacker",
					Map.of("callId", "forged"), Channel.of("forged"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CountingExecutorConfiguration {

		final AtomicInteger tasks = new AtomicInteger();

		@Bean
		AsyncTaskExecutor mantleHookExecutor() {
			SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor();
			executor.setTaskDecorator((task) -> {
				this.tasks.incrementAndGet();
				return task;
			});
			return executor;
		}

		@Bean
		FailingObservers otherPointHooks() {
			return new FailingObservers();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowStartExecutorConfiguration {

		@Bean
		AsyncTaskExecutor mantleHookExecutor() {
			SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor();
			executor.setTaskDecorator((task) -> () -> {
				try {
					Thread.sleep(3000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				task.run();
			});
			return executor;
		}

		@Bean
		Observer outgoingObserver() {
			return new Observer();
		}

		static class Observer {

			final BlockingQueue<String> seen = new LinkedBlockingQueue<>();

			@OnOutgoingText
			void watch(OutgoingTextPayload outgoing) {
				this.seen.add(outgoing.text());
			}

		}

	}

	static class CrashingRequestHook {

		@ModifyModelRequest
		ModelRequestPayload cool(ModelRequestPayload request) {
			throw new IllegalStateException("model settings store unavailable");
		}

	}

	static class CrashingResponseHook {

		@ModifyModelResponse
		ModelResponsePayload check(ModelResponsePayload response) {
			throw new IllegalStateException("boom");
		}

	}

	static class SlowToolResultHook {

		final CountDownLatch interrupted = new CountDownLatch(1);

		@ModifyToolResult(timeoutMs = 100)
		ToolResultPayload redact(ToolResultPayload result) {
			try {
				Thread.sleep(WAIT.toMillis());
			}
			catch (InterruptedException ex) {
				this.interrupted.countDown();
			}
			return result;
		}

	}

	static class NullOutgoingHook {

		@ModifyOutgoingText
		OutgoingTextPayload rewrite(OutgoingTextPayload text) {
			return null;
		}

	}

	static class WrongPointSignalHook {

		@ModifyModelRequest
		ModelRequestPayload cool(ModelRequestPayload request) {
			throw Signals.retry("not allowed here");
		}

	}

	static class RetryingResponseHook {

		@ModifyModelResponse
		ModelResponsePayload ground(ModelResponsePayload response) {
			throw new RetryModel("Cite a passage.");
		}

	}

	static class RejectingIncomingHook {

		@ModifyIncomingMessage
		IncomingMessagePayload dropSpam(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_spam_rejected");
			}
			return message;
		}

	}

	static class AsyncHooks {

		@ModifyOutgoingText
		CompletionStage<OutgoingTextPayload> trim(OutgoingTextPayload text) {
			return CompletableFuture.supplyAsync(() -> text.withText(text.text().trim()));
		}

		@ModifyToolCall
		CompletableFuture<ToolCallPayload> guard(ToolCallPayload call) {
			return CompletableFuture.supplyAsync(() -> {
				if (call.toolName().startsWith("delete")) {
					throw new RetryModel("Ask the user to confirm first.");
				}
				return call;
			});
		}

	}

	static class ReactiveHooks {

		// the same hook answers at once and never: a timeout the healthy answer never
		// reaches on a loaded machine, which the test waits out once
		@ModifyKnowledgeQuery(timeoutMs = 3000)
		Mono<KnowledgeQueryPayload> expand(KnowledgeQueryPayload query) {
			return switch (query.query()) {
				case "never" -> Mono.never();
				case "empty" -> Mono.empty();
				default -> Mono.delay(Duration.ofMillis(10)).map((tick) -> query.withQuery("ticket " + query.query()));
			};
		}

	}

	static class LazyMonoHook {

		final AtomicReference<String> thread = new AtomicReference<>();

		@ModifyOutgoingText(timeoutMs = 100)
		Mono<OutgoingTextPayload> slow(OutgoingTextPayload text) {
			return Mono.fromCallable(() -> {
				this.thread.set(Thread.currentThread().getName());
				Thread.sleep(2000);
				return text;
			});
		}

	}

	static class UnreachableHooks {

		final AtomicInteger calls = new AtomicInteger();

		@ModifyOutgoingText(timeoutMs = 600_000)
		OutgoingTextPayload keep(OutgoingTextPayload text) {
			this.calls.incrementAndGet();
			return text;
		}

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
			this.calls.incrementAndGet();
		}

	}

	static class UncancellableHook {

		@ModifyOutgoingText(timeoutMs = 100)
		CompletionStage<OutgoingTextPayload> never(OutgoingTextPayload text) {
			return new CompletableFuture<>() {

				@Override
				public boolean cancel(boolean mayInterruptIfRunning) {
					throw new IllegalStateException("cannot cancel");
				}

			};
		}

	}

	static class SleepingObserver {

		final AtomicInteger interrupted = new AtomicInteger();

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
			try {
				Thread.sleep(WAIT.toMillis());
			}
			catch (InterruptedException ex) {
				this.interrupted.incrementAndGet();
			}
		}

	}

	static class ThrowingHandler implements ObservationHandler<Observation.Context> {

		@Override
		public void onError(Observation.Context context) {
			throw new IllegalStateException("handler broken");
		}

		@Override
		public void onStop(Observation.Context context) {
			throw new IllegalStateException("handler broken");
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class NeverObserver {

		@OnOutgoingText
		Mono<Void> watch(OutgoingTextPayload text) {
			return Mono.never();
		}

	}

	static class StragglingHook {

		static final int AT_ONCE = 10;

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger mostAtOnce = new AtomicInteger();

		private final AtomicInteger running = new AtomicInteger();

		private final CountDownLatch together = new CountDownLatch(AT_ONCE);

		@ModifyOutgoingText
		OutgoingTextPayload check(OutgoingTextPayload text) throws InterruptedException {
			if (text.text().equals("stall")) {
				// ignores the interrupt of its timeout until the test releases it
				Stalls.awaitIgnoringInterrupts(this.release, 30_000);
				return text;
			}
			this.mostAtOnce.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			// all of them in flight at once, more than max-concurrent, beside
			// the straggler
			this.together.countDown();
			this.together.await(WAIT.toSeconds(), TimeUnit.SECONDS);
			this.running.decrementAndGet();
			return text.withText(text.text() + " ok");
		}

	}

	static class HungObserver {

		final CountDownLatch release = new CountDownLatch(1);

		final Queue<String> seen = new ConcurrentLinkedQueue<>();

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
			this.seen.add(text.text());
			Stalls.awaitIgnoringInterrupts(this.release, 30_000);
		}

	}

	static class BlockingObserver {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final CountDownLatch finished = new CountDownLatch(1);

		final CountDownLatch interrupted = new CountDownLatch(1);

		final AtomicInteger calls = new AtomicInteger();

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
			this.started.countDown();
			try {
				this.release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
				this.calls.incrementAndGet();
			}
			catch (InterruptedException ex) {
				this.interrupted.countDown();
			}
			this.finished.countDown();
		}

	}

	static class FailingObservers {

		@OnModelRequest
		void crash(ModelRequestPayload request) {
			throw new IllegalStateException("audit store down");
		}

		@OnToolCall
		void signal(ToolCallPayload call) {
			throw Signals.retry("observers cannot steer");
		}

	}

	static class MutatingObserver {

		final CountDownLatch done = new CountDownLatch(1);

		final AtomicReference<Boolean> mutatedCopy = new AtomicReference<>(false);

		@OnModelRequest
		void tamper(ModelRequestPayload request) {
			try {
				request.messages().get(0).getMetadata().put("k", "tampered");
				this.mutatedCopy.set(true);
			}
			finally {
				this.done.countDown();
			}
		}

	}

	static class ToolCallWatcher {

		final CountDownLatch done = new CountDownLatch(1);

		final AtomicReference<ToolCallPayload> seen = new AtomicReference<>();

		@OnToolCall
		void watch(ToolCallPayload call) {
			this.seen.set(call);
			this.done.countDown();
		}

	}

	static class ContextReadingHook {

		private final ObservationRegistry observations;

		final AtomicReference<String> threadName = new AtomicReference<>();

		final AtomicReference<String> requestId = new AtomicReference<>();

		final AtomicReference<String> turnId = new AtomicReference<>();

		final AtomicReference<Observation> observation = new AtomicReference<>();

		ContextReadingHook(ObservationRegistry observations) {
			this.observations = observations;
		}

		@ModifyModelRequest
		ModelRequestPayload read(ModelRequestPayload request) {
			this.threadName.set(Thread.currentThread().getName());
			this.requestId.set(MDC.get("requestId"));
			this.turnId.set(MDC.get(HookScope.MDC_TURN_ID));
			this.observation.set(this.observations.getCurrentObservation());
			return request;
		}

	}

}
