package io.mantlehooks.runtime;

import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Runs the application's hooks at a point: {@link #observe} starts the observers and
 * returns at once, {@link #modify} awaits the modify hook and reports what it decided.
 * <p>
 * A point without hooks costs a registry check: no thread hop, no copy. Callers that
 * build payloads should check {@link #hasHooks(HookPoint)} first so that a point without
 * hooks does not even build one.
 */
public class HookRunner implements DisposableBean {

	private final HookRegistry registry;

	private final ScheduledThreadPoolExecutor timer;

	private final ObserveLane observeLane;

	private final ModifyLane modifyLane;

	/**
	 * Create a runner.
	 * @param registry the hooks
	 * @param executor the executor that runs blocking hooks and observers; it should
	 * propagate context (MDC, observations) to its threads
	 * @param maxConcurrentObservers how many observe invocations may be in flight at once
	 */
	public HookRunner(HookRegistry registry, AsyncTaskExecutor executor, int maxConcurrentObservers) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		Assert.isTrue(maxConcurrentObservers > 0, "'maxConcurrentObservers' must be positive");
		this.registry = registry;
		this.timer = new ScheduledThreadPoolExecutor(1, timerThreadFactory());
		this.timer.setRemoveOnCancelPolicy(true);
		this.observeLane = new ObserveLane(executor, this.timer, maxConcurrentObservers);
		this.modifyLane = new ModifyLane(executor);
	}

	private static CustomizableThreadFactory timerThreadFactory() {
		CustomizableThreadFactory threadFactory = new CustomizableThreadFactory("mantle-hook-timeout-");
		threadFactory.setDaemon(true);
		return threadFactory;
	}

	/**
	 * Return the registry this runner reads.
	 * @return the registry
	 */
	public HookRegistry getRegistry() {
		return this.registry;
	}

	/**
	 * Return whether a point has any hook.
	 * @param point the point
	 * @return whether a modify hook or observer is registered
	 */
	public boolean hasHooks(HookPoint point) {
		return this.registry.hasHooks(point);
	}

	/**
	 * Return whether a point has a modify hook.
	 * @param point the point
	 * @return whether a modify hook is registered
	 */
	public boolean hasModifier(HookPoint point) {
		return this.registry.hasModifier(point);
	}

	/**
	 * Return the observers of a point.
	 * @param point the point
	 * @return the observe hooks, possibly empty
	 */
	public List<HookMethod> observers(HookPoint point) {
		return this.registry.observers(point);
	}

	/**
	 * Start the observers of a point and return at once. Each runs on the hook executor
	 * with its own timeout; what they throw is logged and discarded.
	 * @param point the point
	 * @param payload the payload, of the point's payload type
	 */
	public void observe(HookPoint point, HookPayload payload) {
		List<HookMethod> observers = this.registry.observers(point);
		if (observers.isEmpty()) {
			return;
		}
		checkPayload(point, payload);
		this.observeLane.run(observers, payload);
	}

	/**
	 * Run the modify hook of a point and wait for it within its timeout.
	 * @param <P> the payload type
	 * @param point the point
	 * @param payload the payload, of the point's payload type
	 * @return the payload to continue with (the input when the point has no modify hook),
	 * a signal the point allows, or a failure to apply the point's fail policy to
	 */
	public <P extends HookPayload> ModifyResult<P> modify(HookPoint point, P payload) {
		HookMethod modifier = this.registry.modifier(point);
		if (modifier == null) {
			return new ModifyResult.Proceed<>(payload);
		}
		checkPayload(point, payload);
		return this.modifyLane.run(modifier, payload);
	}

	/**
	 * Return how many observe invocations were dropped because
	 * {@code mantle.hooks.observers.max-concurrent} were already in flight.
	 * @return the number of dropped invocations since startup
	 */
	public long getDroppedObserverInvocations() {
		return this.observeLane.dropped();
	}

	/**
	 * Return how many observe invocations are in flight now.
	 * @return the number of running observe invocations
	 */
	public int getObserversInFlight() {
		return this.observeLane.inFlight();
	}

	private static void checkPayload(HookPoint point, HookPayload payload) {
		Assert.isInstanceOf(point.payloadType(), payload, () -> "Payload for point " + point.configName());
	}

	@Override
	public void destroy() {
		this.timer.shutdownNow();
		try {
			this.timer.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
