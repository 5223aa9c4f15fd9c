package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A kept hook thread runs the invocations that come while it spins, hands the others to
 * the executor, and runs every invocation it is given exactly once. The spins here never
 * run out on their own (or are not allowed at all), so what runs where does not depend on
 * the machine's speed.
 */
@Timeout(120)
class KeptHookThreadTests {

	/** Long enough that a spin never runs out in these tests, however loaded. */
	private static final long NEVER_RUNS_OUT = Duration.ofMinutes(5).toNanos();

	private final ThreadPerTask executor = new ThreadPerTask();

	private final List<CountDownLatch> held = new CopyOnWriteArrayList<>();

	@AfterEach
	void releaseHeldInvocations() {
		this.held.forEach(CountDownLatch::countDown);
	}

	@Test
	void invocationsThatComeWhileTheThreadSpinsRunOnItWithoutANewTask() {
		KeptHookThread kept = new KeptHookThread(this.executor, spinning());
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 10; i++) {
			Recorded invocation = new Recorded(ranOn);
			kept.execute(invocation);
			invocation.awaitRun();
			awaitSpinning(kept);
		}
		assertThat(ranOn).hasSize(10);
		assertThat(ranOn).containsOnly(ranOn.get(0));
		assertThat(this.executor.tasks.get()).isOne();
		kept.close();
		await().atMost(Duration.ofSeconds(60)).until(() -> !ranOn.get(0).isAlive());
		assertThat(kept.isKept()).isFalse();
	}

	@Test
	void anInvocationThatComesWhileTheThreadRunsAnotherGoesToTheExecutorAtOnce() {
		KeptHookThread kept = new KeptHookThread(this.executor, spinning());
		CountDownLatch release = hold();
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		Recorded hung = new Recorded(ranOn, release);
		kept.execute(hung);
		hung.awaitStarted();
		Recorded next = new Recorded(ranOn);
		kept.execute(next);
		// it runs while the first still hangs, on a thread of its own
		next.awaitRun();
		assertThat(hung.runs.get()).isZero();
		assertThat(this.executor.tasks.get()).isEqualTo(2);
		// the hung invocation returns: its thread spins again and takes the next one
		release.countDown();
		hung.awaitRun();
		awaitSpinning(kept);
		Recorded after = new Recorded(ranOn);
		kept.execute(after);
		after.awaitRun();
		assertThat(this.executor.tasks.get()).isEqualTo(2);
		assertThat(after.thread).isSameAs(hung.thread).isNotSameAs(next.thread);
		kept.close();
	}

	@Test
	void withNoSpinAllowedEachInvocationGetsATaskOfItsOwnAndNoThreadIsKept() {
		KeptHookThread kept = new KeptHookThread(this.executor, new HookWait(NEVER_RUNS_OUT, 0, new AtomicInteger()));
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 5; i++) {
			Recorded invocation = new Recorded(ranOn);
			kept.execute(invocation);
			invocation.awaitRun();
			await().atMost(Duration.ofSeconds(60)).until(() -> !kept.isKept());
		}
		assertThat(this.executor.tasks.get()).isEqualTo(5);
		assertThat(ranOn).doesNotHaveDuplicates();
	}

	@Test
	void aSpinThatIsOutlastedGivesTheThreadBackAndTheNextInvocationStartsANewOne() {
		// runs out at its first look: the thread goes back after every invocation
		KeptHookThread kept = new KeptHookThread(this.executor, new HookWait(1, 1, new AtomicInteger()));
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 3; i++) {
			Recorded invocation = new Recorded(ranOn);
			kept.execute(invocation);
			invocation.awaitRun();
			await().atMost(Duration.ofSeconds(60)).until(() -> !kept.isKept());
		}
		assertThat(this.executor.tasks.get()).isEqualTo(3);
		assertThat(ranOn).hasSize(3);
	}

	@Test
	void closingStopsTheSpinAndLaterInvocationsGoToTheExecutor() {
		KeptHookThread kept = new KeptHookThread(this.executor, spinning());
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		Recorded first = new Recorded(ranOn);
		kept.execute(first);
		first.awaitRun();
		awaitSpinning(kept);
		kept.close();
		await().atMost(Duration.ofSeconds(60)).until(() -> !first.thread.isAlive());
		Recorded later = new Recorded(ranOn);
		kept.execute(later);
		later.awaitRun();
		assertThat(this.executor.tasks.get()).isEqualTo(2);
		assertThat(later.thread).isNotSameAs(first.thread);
		assertThat(kept.isKept()).isFalse();
	}

	@Test
	void aRefusedTaskIsThrownAndTheNextInvocationTriesAgain() {
		AtomicBoolean refuse = new AtomicBoolean(true);
		Executor refusingOnce = (task) -> {
			if (refuse.getAndSet(false)) {
				throw new RejectedExecutionException("full");
			}
			this.executor.execute(task);
		};
		KeptHookThread kept = new KeptHookThread(refusingOnce, spinning());
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		Recorded refused = new Recorded(ranOn);
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> kept.execute(refused));
		assertThat(kept.isKept()).isFalse();
		Recorded next = new Recorded(ranOn);
		kept.execute(next);
		next.awaitRun();
		assertThat(refused.runs.get()).isZero();
		kept.close();
	}

	@Test
	void anInvocationThatThrowsAnErrorOrLeavesAnInterruptLeavesTheThreadUsableAndClean() {
		KeptHookThread kept = new KeptHookThread(this.executor, spinning());
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		CountDownLatch thrown = new CountDownLatch(1);
		Thread[] thrower = new Thread[1];
		kept.execute(() -> {
			thrower[0] = Thread.currentThread();
			Thread.currentThread().interrupt();
			thrown.countDown();
			throw new StackOverflowError("deep");
		});
		await().atMost(Duration.ofSeconds(60)).until(() -> thrown.getCount() == 0);
		awaitSpinning(kept);
		AtomicBoolean interrupted = new AtomicBoolean(true);
		Recorded next = new Recorded(ranOn, null, () -> interrupted.set(Thread.currentThread().isInterrupted()));
		kept.execute(next);
		next.awaitRun();
		assertThat(next.thread).isSameAs(thrower[0]);
		assertThat(interrupted).isFalse();
		assertThat(this.executor.tasks.get()).isOne();
		kept.close();
	}

	@Test
	void anErrorWhileTheThreadLogsAFailureEndsItCleanlyAndTheNextInvocationIsKeptAgain() {
		KeptHookThread kept = new KeptHookThread(this.executor, spinning());
		Thread[] failed = new Thread[1];
		whileItsLogThrows(() -> {
			kept.execute(() -> {
				failed[0] = Thread.currentThread();
				throw new IllegalStateException("the task failed, and logging that fails too");
			});
			awaitEnded(() -> failed[0]);
		});
		// the thread that left is not waited for: the next invocation starts a thread
		// that is kept again
		assertThat(kept.isKept()).isFalse();
		assertKeptAgain(kept, failed[0], 2);
	}

	@Test
	void anErrorWhileTheSpinLogsItsFailureRunsWhatWasHandedOverExactlyOnce() {
		AtomicBoolean fail = new AtomicBoolean();
		AtomicReference<KeptHookThread> keptThread = new AtomicReference<>();
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		Recorded handedOver = new Recorded(ranOn);
		// once told to, the spin's clock hands an invocation over and then fails; a clock
		// that stands still never lets the spin run out on its own
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger(), new AtomicInteger(), () -> {
			if (fail.compareAndSet(true, false)) {
				keptThread.get().execute(handedOver);
				throw new IllegalStateException("the clock failed");
			}
			return 0L;
		});
		KeptHookThread kept = new KeptHookThread(this.executor, wait);
		keptThread.set(kept);
		Recorded first = new Recorded(ranOn);
		whileItsLogThrows(() -> {
			failItsSpinAfter(kept, first, fail);
			await().dontCatchUncaughtExceptions()
				.atMost(Duration.ofSeconds(60))
				.until(() -> handedOver.runs.get() == 1);
		});
		// it ran once, on a task of its own, not stranded on the thread that left
		assertThat(handedOver.runs.get()).isOne();
		assertThat(handedOver.thread).isNotSameAs(first.thread);
		assertThat(this.executor.tasks.get()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(60)).until(() -> !kept.isKept());
		assertKeptAgain(kept, first.thread, 3);
	}

	@Test
	void aThreadThatLeavesDoesNotTakeBackAnInvocationAStaleTaskTookFirst() throws Exception {
		// the first start is queued, then refused: its task runs when the test says
		AtomicReference<Runnable> stale = new AtomicReference<>();
		Executor queuedThenRefused = (task) -> {
			if (stale.compareAndSet(null, task)) {
				throw new RejectedExecutionException("queued, then refused");
			}
			this.executor.execute(task);
		};
		AtomicBoolean fail = new AtomicBoolean();
		AtomicReference<KeptHookThread> keptThread = new AtomicReference<>();
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		CountDownLatch release = hold();
		Recorded handedOver = new Recorded(ranOn, release);
		// once told to, the spin's clock hands an invocation over, lets the stale
		// task take it, and then fails
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 2, new AtomicInteger(), new AtomicInteger(), () -> {
			if (fail.compareAndSet(true, false)) {
				keptThread.get().execute(handedOver);
				Thread staleTask = new Thread(stale.get(), "mantle-hook-test-stale");
				staleTask.setDaemon(true);
				staleTask.start();
				Stalls.awaitIgnoringInterrupts(handedOver.started, 60_000);
				throw new IllegalStateException("the clock failed");
			}
			return 0L;
		});
		KeptHookThread kept = new KeptHookThread(queuedThenRefused, wait);
		keptThread.set(kept);
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> kept.execute(new Recorded(ranOn)));
		Recorded first = new Recorded(ranOn);
		whileItsLogThrows(() -> failItsSpinAfter(kept, first, fail));
		// the stale task runs the invocation it took: the state is its, not given back
		assertThat(kept.isKept()).isTrue();
		release.countDown();
		handedOver.awaitRun();
		awaitSpinning(kept);
		Recorded after = new Recorded(ranOn);
		kept.execute(after);
		after.awaitRun();
		assertThat(handedOver.runs.get()).isOne();
		assertThat(after.thread).isSameAs(handedOver.thread).isNotSameAs(first.thread);
		assertThat(this.executor.tasks.get()).isOne();
		kept.close();
	}

	/**
	 * Run the invocation on the kept thread, let it spin, then tell its clock to fail and
	 * wait until the thread has ended.
	 */
	private static void failItsSpinAfter(KeptHookThread kept, Recorded first, AtomicBoolean fail) {
		kept.execute(first);
		first.awaitRun();
		awaitSpinning(kept);
		fail.set(true);
		awaitEnded(() -> first.thread);
	}

	/**
	 * Run the body while every log of {@link KeptHookThread} throws an {@code Error}.
	 */
	private static void whileItsLogThrows(Runnable body) {
		Logger log = (Logger) LoggerFactory.getLogger(KeptHookThread.class);
		Level level = log.getLevel();
		AppenderBase<ILoggingEvent> throwing = new AppenderBase<>() {
			@Override
			protected void append(ILoggingEvent event) {
				throw new StackOverflowError("no room to log");
			}
		};
		throwing.start();
		log.addAppender(throwing);
		log.setLevel(Level.DEBUG);
		try {
			body.run();
		}
		finally {
			log.detachAppender(throwing);
			log.setLevel(level);
		}
	}

	/**
	 * Wait until a thread has ended, through an {@code Error} as any thread whose own
	 * work throws one.
	 */
	private static void awaitEnded(Supplier<Thread> thread) {
		await().dontCatchUncaughtExceptions()
			.atMost(Duration.ofSeconds(60))
			.until(() -> thread.get() != null && !thread.get().isAlive());
	}

	/**
	 * Assert that the next invocations start a thread that is kept again, not the one
	 * that left, with the given number of tasks started in all.
	 */
	private void assertKeptAgain(KeptHookThread kept, Thread left, int tasks) {
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		Recorded next = new Recorded(ranOn);
		kept.execute(next);
		next.awaitRun();
		awaitSpinning(kept);
		Recorded after = new Recorded(ranOn);
		kept.execute(after);
		after.awaitRun();
		assertThat(after.thread).isSameAs(next.thread).isNotSameAs(left);
		assertThat(this.executor.tasks.get()).isEqualTo(tasks);
		kept.close();
	}

	@Test
	void everyInvocationRunsExactlyOnceWhileHandOversRaceSpinsThatEndAndCloses() throws Exception {
		ExecutorService callers = Executors.newFixedThreadPool(4);
		try {
			for (int trial = 0; trial < 100; trial++) {
				// spins of a few microseconds: some end while a hand-over comes
				AtomicInteger spinning = new AtomicInteger();
				AtomicInteger waitingForSlot = new AtomicInteger();
				KeptHookThread kept = new KeptHookThread(this.executor,
						new HookWait(ThreadLocalRandom.current().nextLong(1, 20_000), 1, spinning, waitingForSlot));
				List<AtomicInteger> runs = new CopyOnWriteArrayList<>();
				List<Future<?>> sent = new ArrayList<>();
				int closeAfter = ThreadLocalRandom.current().nextInt(0, 100);
				for (int caller = 0; caller < 4; caller++) {
					int first = caller * 25;
					sent.add(callers.submit(() -> {
						for (int i = first; i < first + 25; i++) {
							AtomicInteger ran = new AtomicInteger();
							runs.add(ran);
							kept.execute(ran::incrementAndGet);
							if (i == closeAfter) {
								kept.close();
							}
						}
					}));
				}
				for (Future<?> future : sent) {
					future.get(60, TimeUnit.SECONDS);
				}
				kept.close();
				await().atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(1))
					.until(() -> runs.stream().allMatch((ran) -> ran.get() >= 1) && !kept.isKept());
				// the thread is gone: nothing can run a second time any more
				assertThat(runs).hasSize(100).allSatisfy((ran) -> assertThat(ran.get()).isOne());
				// and every slot or place it took is given back
				assertThat(spinning).hasValue(0);
				assertThat(waitingForSlot).hasValue(0);
			}
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void anExecutorThatRunsTasksOnTheirCallerKeepsNoThreadSpinning() {
		// the spin never runs out: the test would hang if the caller's thread spun
		KeptHookThread kept = new KeptHookThread(Runnable::run, spinning());
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 3; i++) {
			Recorded invocation = new Recorded(ranOn);
			kept.execute(invocation);
			assertThat(invocation.runs.get()).isOne();
			assertThat(kept.isKept()).isFalse();
		}
		assertThat(ranOn).containsOnly(Thread.currentThread());
	}

	@Test
	void aRunnersToolResultHooksRunOnTheKeptThreadAndATimeoutsInterruptDoesNotReachTheNext() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
			.withPropertyValues("mantle.hooks.timeouts.hook[resultHook.check]=2s")
			.withBean("resultHook", ResultHook.class)
			.run((context) -> {
				HookRunner configured = context.getBean(HookRunner.class);
				HookRunner runner = new HookRunner(configured.getRegistry(), configured.getExecutor(),
						ObservationRegistry.NOOP, null, spinning());
				ResultHook hook = context.getBean(ResultHook.class);
				try (KeptHookThread kept = runner.keepThread()) {
					hook.kept = kept;
					for (String value : List.of("a", "b", "slow", "c", "d")) {
						ModifyResult<ToolResultPayload> result = runner.runAndWait(HookPoint.TOOL_RESULT,
								new ToolResultPayload("lookup", Map.of(), value, false, "u1", Map.of(), Channel.none()),
								HookScope.none(), kept);
						if (value.equals("slow")) {
							assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
									(failed) -> assertThat(failed.failure().kind())
										.isEqualTo(HookFailure.Kind.TIMEOUT));
						}
						else {
							assertThat(result).isInstanceOfSatisfying(ModifyResult.Proceed.class,
									(proceed) -> assertThat(((ToolResultPayload) proceed.payload()).value())
										.isEqualTo(value + "!"));
						}
						// the caller no longer waits, and the next result comes once
						// the thread spins again
						assertThat(kept.isCallerWaiting()).isFalse();
						awaitSpinning(kept);
					}
				}
				// while each hook ran, its caller waited for it
				assertThat(hook.callerWaiting).containsExactly(true, true, true, true, true);
				assertThat(hook.threads).hasSize(5);
				assertThat(hook.threads).containsOnly(hook.threads.get(0));
				assertThat(hook.interruptedAtStart).containsExactly(false, false, false, false, false);
				assertThat(hook.interruptedBySlow).isTrue();
			});
	}

	@Test
	void eachKeptThreadAndItsCallerBackOffOnTheirOwnSoABatchWhoseResultsCameLateLeavesOtherWaitsSpinning() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
			.withBean("resultHook", ResultHook.class)
			.run((context) -> {
				HookRunner configured = context.getBean(HookRunner.class);
				// every spin runs out at its first look: each result comes too late
				HookRunner runner = new HookRunner(configured.getRegistry(), configured.getExecutor(),
						ObservationRegistry.NOOP, null, new HookWait(1, 1, new AtomicInteger()));
				try (KeptHookThread late = runner.keepThread()) {
					for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF; i++) {
						String value = "r" + i;
						ModifyResult<ToolResultPayload> result = runner.runAndWait(HookPoint.TOOL_RESULT,
								new ToolResultPayload("lookup", Map.of(), value, false, "u1", Map.of(), Channel.none()),
								HookScope.none(), late);
						assertThat(result).isInstanceOfSatisfying(ModifyResult.Proceed.class,
								(proceed) -> assertThat(((ToolResultPayload) proceed.payload()).value())
									.isEqualTo(value + "!"));
						await().atMost(Duration.ofSeconds(60)).until(() -> !late.isKept());
					}
					assertThat(late.backingOff()).isTrue();
					// the waits for those late results count their misses with the batch,
					// never with every .call() turn of the runner (whether a result is
					// there at the caller's first look depends on the machine, so the
					// batch's own count is not asserted)
					assertThat(late.callerWait()).isNotSameAs(runner.getWait());
					assertThat(runner.getWait().backingOff()).isFalse();
				}
				try (KeptHookThread next = runner.keepThread()) {
					assertThat(next.backingOff()).isFalse();
				}
			});
	}

	@Test
	void whileItsCallerStillWaitsTheKeptThreadsSpinDoesNotCountItsTime() {
		// a clock the test moves, read by the spin at every look
		AtomicLong now = new AtomicLong();
		AtomicInteger reads = new AtomicInteger();
		HookWait wait = new HookWait(100, 1, new AtomicInteger(), new AtomicInteger(), () -> {
			reads.incrementAndGet();
			return now.get();
		});
		KeptHookThread kept = new KeptHookThread(this.executor, wait);
		List<Thread> ranOn = new CopyOnWriteArrayList<>();
		kept.callerWaiting(true);
		Recorded first = new Recorded(ranOn);
		kept.execute(first);
		first.awaitRun();
		awaitSpinning(kept);
		// three spins' time later the caller, still being woken, has not taken its result
		now.set(300);
		awaitLooks(reads);
		assertThat(kept.isSpinning()).isTrue();
		// it has: the spin's time counts from here, and runs out one spin later
		kept.callerWaiting(false);
		awaitLooks(reads);
		assertThat(kept.isSpinning()).isTrue();
		now.set(400);
		await().atMost(Duration.ofSeconds(60)).until(() -> !kept.isKept());
		assertThat(this.executor.tasks.get()).isOne();
		assertThat(kept.backingOff()).isFalse();
	}

	private CountDownLatch hold() {
		CountDownLatch latch = new CountDownLatch(1);
		this.held.add(latch);
		return latch;
	}

	private static HookWait spinning() {
		return new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger());
	}

	/**
	 * Wait until the spinning thread has looked at the clock a few more times.
	 */
	private static void awaitLooks(AtomicInteger reads) {
		int seen = reads.get();
		await().atMost(Duration.ofSeconds(60)).until(() -> reads.get() > seen + 2);
	}

	private static void awaitSpinning(KeptHookThread kept) {
		await().atMost(Duration.ofSeconds(60)).until(kept::isSpinning);
	}

	/**
	 * An invocation that records the thread it ran on, after waiting for its release.
	 */
	private static final class Recorded implements Runnable {

		private final List<Thread> ranOn;

		private final CountDownLatch release;

		private final Runnable body;

		private final CountDownLatch started = new CountDownLatch(1);

		private final CountDownLatch done = new CountDownLatch(1);

		final AtomicInteger runs = new AtomicInteger();

		volatile Thread thread;

		Recorded(List<Thread> ranOn) {
			this(ranOn, null);
		}

		Recorded(List<Thread> ranOn, CountDownLatch release) {
			this(ranOn, release, () -> {
			});
		}

		Recorded(List<Thread> ranOn, CountDownLatch release, Runnable body) {
			this.ranOn = ranOn;
			this.release = (release != null) ? release : new CountDownLatch(0);
			this.body = body;
		}

		@Override
		public void run() {
			this.thread = Thread.currentThread();
			this.started.countDown();
			Stalls.awaitIgnoringInterrupts(this.release, 120_000);
			this.body.run();
			this.ranOn.add(Thread.currentThread());
			this.runs.incrementAndGet();
			this.done.countDown();
		}

		void awaitStarted() {
			await().atMost(Duration.ofSeconds(60)).until(() -> this.started.getCount() == 0);
		}

		void awaitRun() {
			await().atMost(Duration.ofSeconds(60)).until(() -> this.done.getCount() == 0);
		}

	}

	/**
	 * A tool-result hook that marks each result and records its thread and whether that
	 * thread came to it interrupted; on a {@code slow} result it sleeps until its timeout
	 * interrupts it.
	 */
	static class ResultHook {

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		final List<Boolean> interruptedAtStart = new CopyOnWriteArrayList<>();

		volatile boolean interruptedBySlow;

		final List<Boolean> callerWaiting = new CopyOnWriteArrayList<>();

		volatile @Nullable KeptHookThread kept;

		@ModifyToolResult(timeoutMs = 120_000)
		ToolResultPayload check(ToolResultPayload payload) {
			this.threads.add(Thread.currentThread());
			KeptHookThread keptThread = this.kept;
			if (keptThread != null) {
				this.callerWaiting.add(keptThread.isCallerWaiting());
			}
			this.interruptedAtStart.add(Thread.currentThread().isInterrupted());
			if (payload.value().equals("slow")) {
				try {
					Thread.sleep(120_000);
				}
				catch (InterruptedException ex) {
					// returns with the flag set again, as a careless hook would
					this.interruptedBySlow = true;
					Thread.currentThread().interrupt();
				}
			}
			return payload.withValue(payload.value() + "!");
		}

	}

	/**
	 * A fresh daemon thread per task, counted, as the hook executor on Java 21 and later.
	 */
	private static final class ThreadPerTask implements Executor {

		final AtomicInteger tasks = new AtomicInteger();

		@Override
		public void execute(Runnable task) {
			this.tasks.incrementAndGet();
			Thread thread = new Thread(task, "mantle-hook-test-" + this.tasks.get());
			thread.setDaemon(true);
			thread.start();
		}

	}

}
