package io.mantlehooks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How the tests' misbehaving hooks take their time: spinning on the CPU or parking, both
 * ignoring interrupts, or sleeping until interrupted.
 */
public final class Stalls {

	private Stalls() {
	}

	/**
	 * Spin on the CPU, ignoring interrupts (holds a virtual thread's carrier).
	 * @param millis how long
	 */
	public static void spin(long millis) {
		long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

	/**
	 * Spin on the CPU, ignoring interrupts, until released or at most {@code millis}: a
	 * busy hook that a test can end, so that a test shows by order (its caller answered
	 * while the hook still spun) what it would otherwise show by a wall-clock budget.
	 * @param release counted down by the test
	 * @param millis how long at most
	 */
	public static void spinUntil(CountDownLatch release, long millis) {
		long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
		while (release.getCount() > 0 && System.nanoTime() - end < 0) {
			Thread.onSpinWait();
		}
	}

	/**
	 * Park, ignoring interrupts (unmounts a virtual thread, but does not stop).
	 * @param millis how long
	 */
	public static void parkIgnoringInterrupts(long millis) {
		long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
		while (System.nanoTime() < end) {
			LockSupport.parkNanos(1_000_000);
		}
	}

	/**
	 * Wait until released, ignoring interrupts (the interrupt flag is set again after),
	 * at most {@code millis}: a hung hook that a test can end.
	 * @param release counted down by the test
	 * @param millis how long at most
	 */
	public static void awaitIgnoringInterrupts(CountDownLatch release, long millis) {
		long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
		boolean interrupted = false;
		while (release.getCount() > 0 && System.nanoTime() - end < 0) {
			try {
				release.await(end - System.nanoTime(), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Sleep, stopping early when interrupted (the interrupt flag stays set).
	 * @param millis how long
	 */
	public static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
