package io.mantlehooks.runtime.execution;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.mantlehooks.HookFailure;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.RetryModel;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A modify hook's circuit breaker as a caller of the runner sees it: repeated failures
 * open it and the point's fail policy then applies at once without calling the hook;
 * signals never count; after the wait, probe calls close it again.
 */
@ExtendWith(OutputCaptureExtension.class)
class CircuitBreakerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
		.withBean("flakyHook", FlakyHook.class)
		.withPropertyValues("mantle.hooks.circuit-breaker.minimum-number-of-calls=4",
				"mantle.hooks.circuit-breaker.sliding-window-type=count-based",
				"mantle.hooks.circuit-breaker.sliding-window-size=4",
				"mantle.hooks.circuit-breaker.wait-duration-in-open-state=300ms");

	@Test
	void repeatedFailuresOpenTheBreakerAndTheHookIsNoLongerCalled(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			FlakyHook hook = context.getBean(FlakyHook.class);
			hook.failing.set(true);
			for (int i = 0; i < 4; i++) {
				assertThat(kind(
						runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"), HookScope.none())))
					.isEqualTo(HookFailure.Kind.CRASH);
			}
			ModifyResult<ModelResponsePayload> skipped = runner.runAndWait(HookPoint.MODEL_RESPONSE,
					HookRunnerTests.response("hi"), HookScope.none());
			assertThat(skipped).isInstanceOfSatisfying(ModifyResult.Failed.class, (failed) -> {
				assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.CIRCUIT_OPEN);
				assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.OPEN);
			});
			assertThat(hook.calls).hasValue(4);
			HookMethod method = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.MODEL_RESPONSE);
			assertThat(method.outcomeCounts()).containsEntry(HookOutcome.CRASH, 4L)
				.containsEntry(HookOutcome.CIRCUIT_OPEN, 1L);
			assertThat(method.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.OPEN);
			// after the wait, probes reach the hook again; once they pass, it closes
			hook.failing.set(false);
			await().atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"),
						HookScope.none()) instanceof ModifyResult.Proceed<?>
						&& method.circuitBreaker().getState() == CircuitBreaker.State.CLOSED);
		});
		assertThat(output).containsOnlyOnce("Circuit breaker of modify hook 'flakyHook.check' opened")
			.contains("Circuit breaker of modify hook 'flakyHook.check' closed again");
	}

	@Test
	void theDefaultsWeighAMinuteOfCallsSoABurstOfFailuresAmongManySuccessesOpensNothing() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
			.withBean("flakyHook", FlakyHook.class)
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				FlakyHook hook = context.getBean(FlakyHook.class);
				HookMethod method = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.MODEL_RESPONSE);
				CircuitBreakerConfig config = method.circuitBreaker().getCircuitBreakerConfig();
				assertThat(config.getSlidingWindowType()).isEqualTo(CircuitBreakerConfig.SlidingWindowType.TIME_BASED);
				assertThat(config.getSlidingWindowSize()).isEqualTo(60);
				assertThat(config.getMinimumNumberOfCalls()).isEqualTo(20);
				assertThat(config.getFailureRateThreshold()).isEqualTo(50);
				assertThat(config.getWaitIntervalFunctionInOpenState().apply(1)).isEqualTo(10_000);
				// a busy minute, then a burst of failures (a stall that timed out every
				// hook running at that moment): a window of the last 50 calls would open
				for (int i = 0; i < 100; i++) {
					runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"), HookScope.none());
				}
				hook.failing.set(true);
				for (int i = 0; i < 30; i++) {
					assertThat(kind(runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"),
							HookScope.none())))
						.isEqualTo(HookFailure.Kind.CRASH);
				}
				assertThat(method.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.CLOSED);
				// a dependency that keeps failing still opens it
				await().atMost(Duration.ofSeconds(60))
					.until(() -> kind(runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"),
							HookScope.none())) == HookFailure.Kind.CIRCUIT_OPEN);
			});
	}

	@Test
	void signalsAreDecisionsNotFailures() {
		this.contextRunner.run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			context.getBean(FlakyHook.class).retrying.set(true);
			for (int i = 0; i < 10; i++) {
				assertThat(
						runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"), HookScope.none()))
					.isInstanceOf(ModifyResult.Signalled.class);
			}
			HookMethod method = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.MODEL_RESPONSE);
			assertThat(method.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.CLOSED);
			assertThat(method.outcomeCounts()).containsEntry(HookOutcome.RETRIED, 10L);
		});
	}

	@Test
	void perHookSettingsWinOverTheDefaults() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.circuit-breaker.hook.[flakyHook.check].failure-rate-threshold=20",
					"mantle.hooks.circuit-breaker.hook.[flakyHook.check].wait-duration-in-open-state=1h")
			.run((context) -> {
				CircuitBreaker breaker = context.getBean(HookRegistry.class)
					.everyAgent()
					.modifier(HookPoint.MODEL_RESPONSE)
					.circuitBreaker();
				assertThat(breaker.getCircuitBreakerConfig().getFailureRateThreshold()).isEqualTo(20f);
				assertThat(breaker.getCircuitBreakerConfig().getMinimumNumberOfCalls()).isEqualTo(4);
				assertThat(breaker.getName()).isEqualTo("flakyHook.check@model-response");
				assertThat(context.getBean(CircuitBreakerRegistry.class).find("flakyHook.check@model-response"))
					.containsSame(breaker);
			});
	}

	@Test
	void disabledBreakersLeaveModifyHooksWithoutOne() {
		this.contextRunner.withPropertyValues("mantle.hooks.circuit-breaker.enabled=false").run((context) -> {
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.everyAgent().modifier(HookPoint.MODEL_RESPONSE).circuitBreaker()).isNull();
		});
	}

	@Test
	void observersHaveNoBreaker() {
		this.contextRunner.run((context) -> assertThat(
				context.getBean(HookRegistry.class).everyAgent().observers(HookPoint.MODEL_RESPONSE))
			.singleElement()
			.satisfies((observer) -> assertThat(observer.circuitBreaker()).isNull()));
	}

	@Test
	void invalidSettingsFailStartupNamingTheKey() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.circuit-breaker.failure-rate-threshold=0",
					"mantle.hooks.circuit-breaker.hook.[flakyHook.check].sliding-window-size=-1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("Property 'mantle.hooks.circuit-breaker.failure-rate-threshold' is 0.0")
				.hasMessageContaining(
						"Property 'mantle.hooks.circuit-breaker.hook[flakyHook.check].sliding-window-size' is -1"));
	}

	@Test
	void keysNamingNoHookAreReported(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("mantle.hooks.circuit-breaker.hook.[flakyHook.chek].failure-rate-threshold=20",
					"mantle.hooks.timeouts.point.turn-started=2s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("mantle.hooks.circuit-breaker.hook has entries for hooks that do not exist: [flakyHook.chek]")
			.contains("mantle.hooks.timeouts.point has entries for points without a modify lane, where they never "
					+ "apply: [turn-started]");
	}

	private static HookFailure.Kind kind(ModifyResult<?> result) {
		return ((ModifyResult.Failed<?>) result).failure().kind();
	}

	static class FlakyHook {

		final AtomicBoolean failing = new AtomicBoolean();

		final AtomicBoolean retrying = new AtomicBoolean();

		final AtomicInteger calls = new AtomicInteger();

		@ModifyModelResponse
		ModelResponsePayload check(ModelResponsePayload response) {
			this.calls.incrementAndGet();
			if (this.retrying.get()) {
				throw new RetryModel("try again");
			}
			if (this.failing.get()) {
				throw new IllegalStateException("guard down");
			}
			return response;
		}

		@OnModelResponse
		void watch(ModelResponsePayload response) {
		}

	}

}
