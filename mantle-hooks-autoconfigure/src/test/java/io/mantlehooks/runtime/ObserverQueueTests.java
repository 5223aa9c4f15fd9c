package io.mantlehooks.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The observer queue: one drain task for what is queued together, another only when the
 * ones started make no progress between two sweeps, nothing left behind, refusals as
 * outcomes. The executor here holds tasks until the test runs them, and the test sweeps,
 * so every step is deterministic.
 */
class ObserverQueueTests {

	private final HeldExecutor executor = new HeldExecutor();

	/** The queue's clock: it moves only when a test moves it. */
	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	/** Sweeps only the drains' slots: the queue's own sweep is the test's to call. */
	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

	private final HookDeadlines deadlines = new HookDeadlines(this.timer);

	private final ObserverQueue queue = new ObserverQueue(this.executor, this.deadlines, this.now::get);

	private final List<String> ran = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopTimer() {
		this.timer.shutdownNow();
	}

	@Test
	void observersQueuedTogetherStartInOneHandOffAndRunInOrderOnOneThread() {
		this.queue.addAll(List.of(task("a"), task("b"), task("c")));
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).containsExactly("a", "b", "c");
		assertThat(this.executor.held).isEmpty();
	}

	@Test
	void aDrainHandsOnAfterItsShareSoOneThreadNeverRunsUnendingly() {
		List<ObserverQueue.Task> many = new ArrayList<>();
		for (int i = 0; i < ObserverQueue.RUNS_PER_DRAIN + 8; i++) {
			many.add(task("t" + i));
		}
		this.queue.addAll(many);
		this.executor.runNext();
		assertThat(this.ran).hasSize(ObserverQueue.RUNS_PER_DRAIN);
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).hasSize(ObserverQueue.RUNS_PER_DRAIN + 8)
			.endsWith("t" + (ObserverQueue.RUNS_PER_DRAIN + 7));
		assertThat(this.executor.held).isEmpty();
	}

	@Test
	void whileADrainRunsAddingStartsNothingAndItsTasksRunThere() {
		CountDownLatch inside = new CountDownLatch(1);
		List<ObserverQueue.Task> later = List.of(task("later"));
		this.queue.addAll(List.of(of(() -> {
			this.ran.add("first");
			// added while the drain runs: no hand-off of its own
			this.queue.addAll(later);
			assertThat(this.executor.held).isEmpty();
			inside.countDown();
		})));
		this.executor.runNext();
		assertThat(inside.getCount()).isZero();
		assertThat(this.ran).containsExactly("first", "later");
		assertThat(this.executor.held).isEmpty();
	}

	@Test
	void aTaskThatRunsPastASweepGetsAnotherDrainForTheOthers() throws InterruptedException {
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.queue.addAll(List.of(of(() -> {
			running.countDown();
			await(release);
		}), task("b"), task("c")));
		Thread slow = new Thread(this.executor::runNext);
		slow.start();
		running.await();
		// the first sweep sees b and c queued, the next sees them still there
		this.queue.sweep();
		assertThat(this.executor.held).isEmpty();
		this.queue.sweep();
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).containsExactly("b", "c");
		release.countDown();
		slow.join();
	}

	@Test
	void noSecondDrainWhileTheFirstStillWaitsForAThread() {
		this.queue.addAll(List.of(task("a"), task("b")));
		this.queue.sweep();
		this.queue.sweep();
		this.queue.sweep();
		// a busy machine, not a slow observer: more tasks would only queue behind it
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).containsExactly("a", "b");
	}

	@Test
	void anAddRightAfterADrainStartedLeavesItsTasksToTheNextSweep() {
		this.queue.addAll(List.of(task("a")));
		this.executor.runNext();
		// under load: the drain that started a moment ago has finished, and this add
		// wakes no thread of its own
		this.queue.addAll(List.of(task("b")));
		this.queue.addAll(List.of(task("c")));
		assertThat(this.executor.held).isEmpty();
		this.queue.sweep();
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).containsExactly("a", "b", "c");
		assertThat(this.executor.held).isEmpty();
	}

	@Test
	void anAddAfterAQuietWhileStartsADrainAtOnce() {
		this.queue.addAll(List.of(task("a")));
		this.executor.runNext();
		this.now.addAndGet(ObserverQueue.QUIET_NANOS);
		this.queue.addAll(List.of(task("b")));
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).containsExactly("a", "b");
	}

	@Test
	void aSweepWithNothingWaitingStartsNothing() {
		this.queue.addAll(List.of(task("a")));
		this.executor.runNext();
		this.queue.sweep();
		this.queue.sweep();
		assertThat(this.executor.held).isEmpty();
	}

	@Test
	void closingStartsADrainForWhatWaitsAndNothingWhenNothingDoes() {
		this.queue.flush();
		assertThat(this.executor.held).isEmpty();
		this.queue.addAll(List.of(task("a")));
		this.executor.runNext();
		this.queue.addAll(List.of(task("b")));
		this.queue.flush();
		assertThat(this.executor.held).hasSize(1);
		this.executor.runNext();
		assertThat(this.ran).containsExactly("a", "b");
	}

	@Test
	void aRefusedDrainIsTheOutcomeOfEveryTaskWaiting() {
		List<String> refused = new ArrayList<>();
		ObserverQueue refusing = new ObserverQueue((task) -> {
			throw new RejectedExecutionException("shut down");
		}, this.deadlines);
		refusing.addAll(List.of(refusable("a", refused), refusable("b", refused)));
		assertThat(refused).containsExactly("a", "b");
		assertThat(this.ran).isEmpty();
	}

	@Test
	void anExecutorFailingOtherwiseRefusesTheWaitingTasksAndLaterOnesStillRun() {
		List<String> refused = new ArrayList<>();
		AtomicBoolean failing = new AtomicBoolean(true);
		ObserverQueue queue = new ObserverQueue((task) -> {
			if (failing.get()) {
				throw new IllegalStateException("executor broken");
			}
			task.run();
		}, this.deadlines);
		queue.addAll(List.of(refusable("a", refused), refusable("b", refused)));
		assertThat(refused).containsExactly("a", "b");
		failing.set(false);
		queue.addAll(List.of(task("c")));
		assertThat(this.ran).containsExactly("c");
	}

	@Test
	void everyDrainClosesItsSlotWhetherItEndsHandsOnOrATaskThrows() {
		List<Integer> openWhileRunning = new CopyOnWriteArrayList<>();
		this.queue.addAll(List.of(of(() -> openWhileRunning.add(this.deadlines.openSlots())), task("a")));
		this.executor.runNext();
		assertThat(openWhileRunning).containsExactly(1);
		assertThat(this.deadlines.openSlots()).isZero();
		List<ObserverQueue.Task> many = new ArrayList<>();
		for (int i = 0; i < ObserverQueue.RUNS_PER_DRAIN + 1; i++) {
			many.add(task("t" + i));
		}
		this.now.addAndGet(ObserverQueue.QUIET_NANOS);
		this.queue.addAll(many);
		this.executor.runNext();
		// handed on after its share: the next drain opens a slot of its own
		assertThat(this.executor.held).hasSize(1);
		assertThat(this.deadlines.openSlots()).isZero();
		this.executor.runNext();
		assertThat(this.deadlines.openSlots()).isZero();
		this.now.addAndGet(ObserverQueue.QUIET_NANOS);
		this.queue.addAll(List.of(of(() -> {
			throw new StackOverflowError("a task that should never throw");
		})));
		assertThatExceptionOfType(StackOverflowError.class).isThrownBy(this.executor::runNext);
		// a slot left open would keep its last invocation, and its payload, reachable
		assertThat(this.deadlines.openSlots()).isZero();
	}

	private ObserverQueue.Task task(String name) {
		return of(() -> this.ran.add(name));
	}

	private ObserverQueue.Task refusable(String name, List<String> refused) {
		return new ObserverQueue.Task() {

			@Override
			public void run(HookDeadlines.Slot slot) {
				ObserverQueueTests.this.ran.add(name);
			}

			@Override
			public void reject(RejectedExecutionException ex) {
				refused.add(name);
			}

		};
	}

	private static ObserverQueue.Task of(Runnable body) {
		return new ObserverQueue.Task() {

			@Override
			public void run(HookDeadlines.Slot slot) {
				body.run();
			}

			@Override
			public void reject(RejectedExecutionException ex) {
				throw new AssertionError("not refused here", ex);
			}

		};
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Holds each task until the test runs it.
	 */
	static final class HeldExecutor implements Executor {

		final List<Runnable> held = new CopyOnWriteArrayList<>();

		@Override
		public void execute(Runnable task) {
			this.held.add(task);
		}

		void runNext() {
			this.held.remove(0).run();
		}

	}

}
