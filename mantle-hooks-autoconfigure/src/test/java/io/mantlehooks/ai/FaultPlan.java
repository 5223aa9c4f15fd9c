package io.mantlehooks.ai;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.HookPoint;
import io.mantlehooks.runtime.HookLane;
import org.jspecify.annotations.Nullable;

/**
 * Which hook misbehaves in the current case, and how. A hook that hangs or spins is held
 * until the test {@linkplain #release() releases} it, so a test proves that the turn did
 * not wait for it by order (the turn answered while the hook was still held), not by a
 * wall-clock budget.
 *
 * @param point the point
 * @param lane the lane
 * @param fault the fault
 * @param entered counted down when the faulty hook is entered
 * @param hold what the held invocations of the faulty hook are doing
 */
record FaultPlan(HookPoint point, HookLane lane, Fault fault, CountDownLatch entered, Hold hold) {

	/**
	 * How long a held hook waits for the test at most: past it the hook ends on its own
	 * and says so, so a turn that waited for it fails its test instead of hanging the
	 * build.
	 */
	static final long HOLD_CAP_SECONDS = 60;

	private static volatile @Nullable FaultPlan current;

	FaultPlan(HookPoint point, HookLane lane, Fault fault) {
		this(point, lane, fault, new CountDownLatch(1), new Hold());
	}

	static void set(@Nullable FaultPlan plan) {
		current = plan;
	}

	static @Nullable FaultPlan get() {
		return current;
	}

	/**
	 * Return the plan when it names that hook, or {@code null} when the hook behaves.
	 */
	static @Nullable FaultPlan of(HookPoint point, HookLane lane) {
		FaultPlan plan = current;
		if (plan == null || plan.point() != point || plan.lane() != lane) {
			return null;
		}
		plan.entered().countDown();
		return plan;
	}

	/**
	 * Release the held invocations of the faulty hook.
	 */
	void release() {
		this.hold.release.countDown();
	}

	/** How a held invocation ended. */
	enum End {

		/** The test released it. */
		RELEASED,

		/** It was interrupted (its timeout, or the caller's interrupt) and stopped. */
		INTERRUPTED,

		/**
		 * Nobody released it within {@link #HOLD_CAP_SECONDS}: something waited for it.
		 */
		CAP

	}

	/**
	 * The held invocations of the faulty hook: how many still run and how the ones that
	 * ended, ended.
	 */
	static final class Hold {

		private final CountDownLatch release = new CountDownLatch(1);

		private final AtomicInteger active = new AtomicInteger();

		private final AtomicBoolean spinning = new AtomicBoolean();

		private final AtomicReference<@Nullable End> firstEnd = new AtomicReference<>();

		/**
		 * Spin on the CPU ignoring interrupts until released (a busy loop). Only one
		 * invocation spins at a time; another one, of the same turn, waits parked
		 * (ignoring interrupts too): two spinners on a two-core machine would hold every
		 * virtual-thread carrier, which stalls the healthy hooks queued behind them until
		 * a spinner ends, and that is not what a case is about.
		 */
		void spin() {
			this.active.incrementAndGet();
			try {
				if (!this.spinning.compareAndSet(false, true)) {
					park(false);
					return;
				}
				long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(HOLD_CAP_SECONDS);
				while (this.release.getCount() > 0) {
					if (System.nanoTime() - end > 0) {
						ended(End.CAP);
						return;
					}
					Thread.onSpinWait();
				}
				ended(End.RELEASED);
			}
			finally {
				this.active.decrementAndGet();
			}
		}

		/**
		 * Wait parked until released.
		 * @param stopOnInterrupt whether an interrupt ends the wait (the flag stays set);
		 * otherwise the wait goes on and the flag is set again after
		 */
		void sleep(boolean stopOnInterrupt) {
			this.active.incrementAndGet();
			try {
				park(stopOnInterrupt);
			}
			finally {
				this.active.decrementAndGet();
			}
		}

		private void park(boolean stopOnInterrupt) {
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(HOLD_CAP_SECONDS);
			boolean interrupted = false;
			try {
				while (this.release.getCount() > 0) {
					long left = end - System.nanoTime();
					if (left <= 0) {
						ended(End.CAP);
						return;
					}
					try {
						this.release.await(left, TimeUnit.NANOSECONDS);
					}
					catch (InterruptedException ex) {
						interrupted = true;
						if (stopOnInterrupt) {
							ended(End.INTERRUPTED);
							return;
						}
					}
				}
				ended(End.RELEASED);
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		private void ended(End end) {
			this.firstEnd.compareAndSet(null, end);
		}

		/**
		 * Return how the first held invocation that ended, ended, or {@code null} while
		 * none has.
		 */
		@Nullable End firstEnd() {
			return this.firstEnd.get();
		}

		/**
		 * Return how many held invocations still run.
		 */
		int active() {
			return this.active.get();
		}

	}

}
