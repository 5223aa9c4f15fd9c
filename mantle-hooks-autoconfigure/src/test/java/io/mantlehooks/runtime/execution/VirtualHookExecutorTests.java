package io.mantlehooks.runtime.execution;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.Channel;
import io.mantlehooks.HookFailure;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.discovery.HookMethodProcessor;
import io.mantlehooks.runtime.discovery.HookTimeouts;
import io.mantlehooks.runtime.guard.HookGuards;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Virtual threads are not preempted: hooks that spin past their timeout ignoring
 * interrupts, as many as the machine has cores, hold every carrier thread. The executor
 * then runs new hooks on platform threads, so other turns go on. The spinning hooks spin
 * until the test releases them, so that a new hook ran while they held every carrier is
 * shown by order, not by a wall-clock budget; the new hook's timeout is far above what a
 * loaded machine needs, so only the spinning hooks time out.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualHookExecutorTests {

	@Test
	void hooksRunOnWhileSpinningHooksHoldEveryCarrier() {
		VirtualHookExecutor executor = new VirtualHookExecutor("test-hook-", 4);
		HookRunner runner = runner(executor);
		SpinHooks.release = new CountDownLatch(1);
		SpinHooks.spinning.set(0);
		try {
			List<CompletableFuture<ModifyResult<ToolCallPayload>>> spinning = new ArrayList<>();
			int carriers = Runtime.getRuntime().availableProcessors();
			for (int i = 0; i < carriers; i++) {
				spinning.add(runner.run(HookPoint.TOOL_CALL,
						new ToolCallPayload("spin", Map.of(), Map.of(), Map.of(), "u", Map.of(), Channel.none()),
						HookScope.none()));
			}
			spinning.forEach((result) -> assertThat(result.join()).isInstanceOfSatisfying(ModifyResult.Failed.class,
					(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT)));
			assertThat(executor.getAbandoned()).isEqualTo(carriers);
			ModifyResult<IncomingMessagePayload> quick = runner.runAndWait(HookPoint.INCOMING_MESSAGE,
					new IncomingMessagePayload("hi", "m", "u", Map.of(), Channel.none()), HookScope.none());
			assertThat(quick).isInstanceOf(ModifyResult.Proceed.class);
			assertThat(QuickHooks.lastThread.get()).startsWith("test-hook-p-");
			// it ran while the spinning hooks still spun: they end only when released
			// (a runner that waited for them would have waited until their cap)
			assertThat(SpinHooks.spinning.get()).isPositive();
			SpinHooks.release.countDown();
			await().atMost(Duration.ofSeconds(60)).until(() -> executor.getAbandoned() == 0);
			runner.runAndWait(HookPoint.INCOMING_MESSAGE,
					new IncomingMessagePayload("hi", "m", "u", Map.of(), Channel.none()), HookScope.none());
			assertThat(QuickHooks.lastThread.get()).isEqualTo("test-hook-" + "virtual");
		}
		finally {
			SpinHooks.release.countDown();
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
				new HookTimeouts(Duration.ofMillis(100), Duration.ofMillis(50),
						Map.of(HookPoint.INCOMING_MESSAGE, Duration.ofSeconds(120)), Map.of()),
				"mantle.hooks.timeouts", HookGuards.builder().circuitBreakers(null, Map.of()).build());
		processor.setBeanFactory(beanFactory);
		processor.afterSingletonsInstantiated();
		return new HookRunner(registry, executor);
	}

	public static class SpinHooks {

		static volatile CountDownLatch release = new CountDownLatch(1);

		/** Invocations that are spinning: they ignore interrupts until released. */
		static final AtomicInteger spinning = new AtomicInteger();

		@ModifyToolCall
		public ToolCallPayload spin(ToolCallPayload call) {
			spinning.incrementAndGet();
			try {
				// a cap, so a failed test does not leave them spinning
				long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
				while (release.getCount() > 0 && System.nanoTime() - end < 0) {
					Thread.onSpinWait();
				}
				return call;
			}
			finally {
				spinning.decrementAndGet();
			}
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
