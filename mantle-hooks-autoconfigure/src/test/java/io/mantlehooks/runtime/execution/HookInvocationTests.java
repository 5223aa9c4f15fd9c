package io.mantlehooks.runtime.execution;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

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
 * contended under load), never times the hook out, and a moment when the whole process
 * stood still (its deadline fired late) is given back once; a hook that runs past its
 * timeout still times out.
 */
class HookInvocationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final ScheduledThreadPoolExecutor timer = new SlowToScheduleTimer();

	private final List<ScheduledThreadPoolExecutor> stalledTimers = new ArrayList<>();

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
		this.timer.shutdownNow();
		this.stalledTimers.forEach(ScheduledThreadPoolExecutor::shutdownNow);
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
		CountDownLatch release = new CountDownLatch(1);
		HookInvocation invocation = new HookInvocation(hook("slow", () -> new Hooks(release)), message(),
				HookScope.none(), this.timer);
		invocation.submit(this.executor);
		assertThat(invocation.outcome()).failsWithin(Duration.ofSeconds(60))
			.withThrowableOfType(Exception.class)
			.withRootCauseInstanceOf(TimeoutException.class);
		release.countDown();
	}

	@Test
	void aHookThatStoodStillWithTheProcessGetsThatTimeAgain() throws Exception {
		CountDownLatch resumed = new CountDownLatch(1);
		ScheduledThreadPoolExecutor stalled = stalledTimer(resumed);
		HookInvocation invocation = new HookInvocation(hook("resumesWithTheProcess", () -> new Hooks(resumed)),
				message(), HookScope.none(), stalled);
		invocation.submit(this.executor);
		// the deadline fired a timeout late, when the hook could run again; the hook
		// then needed a fifth of its timeout more, and proceeds
		assertThat(invocation.outcome().get(60, TimeUnit.SECONDS)).isInstanceOf(IncomingMessagePayload.class);
	}

	@Test
	void aHookThatHangsTimesOutAfterALateDeadlineToo() throws Exception {
		CountDownLatch resumed = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ScheduledThreadPoolExecutor stalled = stalledTimer(resumed);
		HookInvocation invocation = new HookInvocation(hook("slow", () -> new Hooks(release)), message(),
				HookScope.none(), stalled);
		invocation.submit(this.executor);
		assertThat(invocation.outcome()).failsWithin(Duration.ofSeconds(60))
			.withThrowableOfType(Exception.class)
			.withRootCauseInstanceOf(TimeoutException.class);
		release.countDown();
	}

	/**
	 * A timer that stands still for two timeouts from now, as a whole process does in a
	 * long GC pause, and then says it runs again.
	 */
	private ScheduledThreadPoolExecutor stalledTimer(CountDownLatch resumed) {
		ScheduledThreadPoolExecutor stalled = new ScheduledThreadPoolExecutor(1);
		this.stalledTimers.add(stalled);
		stalled.execute(() -> {
			Stalls.sleep(2 * TIMEOUT.toMillis());
			resumed.countDown();
		});
		return stalled;
	}

	private static HookMethod hook(String name) throws NoSuchMethodException {
		return hook(name, () -> new Hooks(new CountDownLatch(1)));
	}

	private static HookMethod hook(String name, Supplier<Object> instance) throws NoSuchMethodException {
		Method method = Hooks.class.getDeclaredMethod(name, IncomingMessagePayload.class);
		return new HookMethod("hooks", HookPoint.INCOMING_MESSAGE, HookLane.MODIFY, method, instance, TIMEOUT,
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

		private final CountDownLatch release;

		Hooks(CountDownLatch release) {
			this.release = release;
		}

		IncomingMessagePayload resumesWithTheProcess(IncomingMessagePayload message) {
			Stalls.awaitIgnoringInterrupts(this.release, 60_000);
			Stalls.sleep(TIMEOUT.toMillis() / 5);
			return message;
		}

		IncomingMessagePayload quick(IncomingMessagePayload message) {
			Stalls.sleep(TIMEOUT.toMillis() / 10);
			return message;
		}

		IncomingMessagePayload slow(IncomingMessagePayload message) {
			Stalls.awaitIgnoringInterrupts(this.release, 60_000);
			return message;
		}

	}

}
