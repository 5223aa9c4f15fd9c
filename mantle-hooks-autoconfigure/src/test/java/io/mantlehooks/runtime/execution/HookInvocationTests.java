package io.mantlehooks.runtime.execution;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.TimeoutSource;
import io.mantlehooks.runtime.guard.HookGuards;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One invocation's timeout is the hook's own time, counted from the moment its method
 * starts: a wait before that, even one inside setting its deadline (the timer's lock,
 * contended under load), never times the hook out; a hook that runs past its timeout
 * still does.
 */
class HookInvocationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final ScheduledThreadPoolExecutor timer = new SlowToScheduleTimer();

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
		this.timer.shutdownNow();
	}

	@Test
	void aWaitWhileTheDeadlineIsSetIsNotTheHooksTime() throws Exception {
		HookInvocation invocation = new HookInvocation(hook("quick"), message(), HookScope.none(), this.timer);
		invocation.submit(this.executor);
		// the timer took two timeouts to set the deadline, counted from before that
		// wait, so it came due at once: the hook, a tenth of its timeout, proceeds
		assertThat(invocation.outcome().get(60, TimeUnit.SECONDS)).isInstanceOf(IncomingMessagePayload.class);
	}

	@Test
	void aHookThatRunsPastItsTimeoutStillTimesOut() throws Exception {
		HookInvocation invocation = new HookInvocation(hook("slow"), message(), HookScope.none(), this.timer);
		invocation.submit(this.executor);
		assertThat(invocation.outcome()).failsWithin(Duration.ofSeconds(60))
			.withThrowableOfType(Exception.class)
			.withRootCauseInstanceOf(TimeoutException.class);
		Hooks.release.countDown();
	}

	private static HookMethod hook(String name) throws NoSuchMethodException {
		Method method = Hooks.class.getDeclaredMethod(name, IncomingMessagePayload.class);
		return new HookMethod("hooks", HookPoint.INCOMING_MESSAGE, HookLane.MODIFY, method, Hooks::new, TIMEOUT,
				TimeoutSource.LANE,
				HookGuards.defaults().forHook("hooks." + name, HookPoint.INCOMING_MESSAGE, HookLane.MODIFY, TIMEOUT),
				StreamMode.WHOLE, Set.of());
	}

	private static IncomingMessagePayload message() {
		return new IncomingMessagePayload("hi", "m-1", "u-1", Map.of(), Channel.none());
	}

	/**
	 * A timer that takes two timeouts to set a deadline, whose delay it counts from
	 * before that wait: what a contended lock does to a deadline under load.
	 */
	static final class SlowToScheduleTimer extends ScheduledThreadPoolExecutor {

		SlowToScheduleTimer() {
			super(1);
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
			long due = System.nanoTime() + unit.toNanos(delay);
			Stalls.sleep(2 * TIMEOUT.toMillis());
			return super.schedule(command, due - System.nanoTime(), TimeUnit.NANOSECONDS);
		}

	}

	static class Hooks {

		static final CountDownLatch release = new CountDownLatch(1);

		IncomingMessagePayload quick(IncomingMessagePayload message) {
			Stalls.sleep(TIMEOUT.toMillis() / 10);
			return message;
		}

		IncomingMessagePayload slow(IncomingMessagePayload message) {
			Stalls.awaitIgnoringInterrupts(release, 60_000);
			return message;
		}

	}

}
