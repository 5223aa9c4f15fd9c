package io.mantlehooks.ai;

import java.util.concurrent.CountDownLatch;

import io.mantlehooks.HookPoint;
import io.mantlehooks.runtime.HookLane;
import org.jspecify.annotations.Nullable;

/**
 * Which hook misbehaves in the current case, and how.
 *
 * @param point the point
 * @param lane the lane
 * @param fault the fault
 * @param entered counted down when the faulty hook is entered
 */
record FaultPlan(HookPoint point, HookLane lane, Fault fault, CountDownLatch entered) {

	private static volatile @Nullable FaultPlan current;

	static void set(@Nullable FaultPlan plan) {
		current = plan;
	}

	static @Nullable FaultPlan get() {
		return current;
	}

	/**
	 * Return the fault for a hook, or {@code null} when it behaves.
	 */
	static @Nullable Fault of(HookPoint point, HookLane lane) {
		FaultPlan plan = current;
		if (plan == null || plan.point() != point || plan.lane() != lane) {
			return null;
		}
		plan.entered().countDown();
		return plan.fault();
	}

}
