package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyToolCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Virtual threads are not preempted: hooks that spin past their timeout ignoring
 * interrupts, as many as the machine has cores, would hold every carrier thread. The
 * executor then runs new hooks on platform threads, so other turns go on.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualHookExecutorTests {

	@Test
	void hooksRunOnWhileSpinningHooksHoldEveryCarrier() {
		VirtualHookExecutor executor = new VirtualHookExecutor("test-hook-");
		HookRunner runner = runner(executor);
		try {
			List<CompletableFuture<ModifyResult<ToolCallPayload>>> spinning = new ArrayList<>();
			int carriers = Runtime.getRuntime().availableProcessors();
			for (int i = 0; i <= carriers; i++) {
				spinning.add(runner.run(HookPoint.TOOL_CALL,
						new ToolCallPayload("spin", Map.of(), Map.of(), Map.of(), "u", Map.of(), Channel.none()),
						HookScope.none()));
			}
			spinning.forEach((result) -> assertThat(result.join()).isInstanceOfSatisfying(ModifyResult.Failed.class,
					(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT)));
			assertThat(VirtualHookExecutor.stragglers()).isPositive();
			long start = System.nanoTime();
			ModifyResult<IncomingMessagePayload> quick = runner.runAndWait(HookPoint.INCOMING_MESSAGE,
					new IncomingMessagePayload("hi", "m", "u", Map.of(), Channel.none()), HookScope.none());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
			assertThat(quick).isInstanceOf(ModifyResult.Proceed.class);
			assertThat(QuickHooks.lastThread.get()).startsWith("test-hook-p-");
			await().atMost(Duration.ofSeconds(10)).until(() -> VirtualHookExecutor.stragglers() == 0);
			runner.runAndWait(HookPoint.INCOMING_MESSAGE,
					new IncomingMessagePayload("hi", "m", "u", Map.of(), Channel.none()), HookScope.none());
			assertThat(QuickHooks.lastThread.get()).isEqualTo("test-hook-" + "virtual");
		}
		finally {
			runner.destroy();
			executor.destroy();
		}
	}

	private static HookRunner runner(VirtualHookExecutor executor) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("spinHooks", new SpinHooks());
		beanFactory.registerSingleton("quickHooks", new QuickHooks());
		HookRegistry registry = new HookRegistry();
		HookMethodProcessor processor = new HookMethodProcessor(registry,
				new HookTimeouts(Duration.ofMillis(100), Duration.ofMillis(50), Map.of(), Map.of()),
				"mantle.hooks.timeouts", HookGuards.builder().circuitBreakers(null, Map.of()).build());
		processor.setBeanFactory(beanFactory);
		processor.afterSingletonsInstantiated();
		return new HookRunner(registry, executor);
	}

	public static class SpinHooks {

		@ModifyToolCall
		public ToolCallPayload spin(ToolCallPayload call) {
			Stalls.spin(1500);
			return call;
		}

	}

	public static class QuickHooks {

		static final AtomicReference<String> lastThread = new AtomicReference<>();

		@ModifyIncomingMessage
		public IncomingMessagePayload quick(IncomingMessagePayload message) {
			Thread current = Thread.currentThread();
			lastThread.set(current.getName().startsWith("test-hook-p-") ? current.getName() : "test-hook-virtual");
			return message;
		}

	}

}
