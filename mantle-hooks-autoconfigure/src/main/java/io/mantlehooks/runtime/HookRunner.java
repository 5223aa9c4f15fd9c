package io.mantlehooks.runtime;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.observation.HookObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Runs the application's hooks at a point. {@link #run} runs the point's modify hook and
 * then its observers with the payload that proceeds; {@link #observe} starts the
 * observers of an observe-only point. Neither blocks: hooks run on the hook executor, and
 * {@code run} hands back a future that completes, on a hook-executor thread, with what
 * the modify hook decided. {@link #runAndWait} is the blocking form for callers that may
 * block.
 * <p>
 * A point without hooks costs a registry check: no thread hop, no copy. Callers that
 * build payloads should check {@link #hasHooks(HookPoint, HookScope)} first so that a
 * point without hooks does not even build one.
 */
public class HookRunner implements DisposableBean {

	private final HookRegistry registry;

	private final ScheduledThreadPoolExecutor timer;

	private final Executor executor;

	private final HookWait wait;

	private final ObserveLane observeLane;

	private final ModifyLane modifyLane;

	/**
	 * Create a runner.
	 * @param registry the hooks
	 * @param executor the executor that runs hooks; each task restores the turn's context
	 * itself
	 */
	public HookRunner(HookRegistry registry, Executor executor) {
		this(registry, executor, ObservationRegistry.NOOP, null);
	}

	/**
	 * Create a runner that reports each hook invocation as a {@code mantle.hook}
	 * observation.
	 * @param registry the hooks
	 * @param executor the executor that runs hooks; each task restores the turn's context
	 * itself
	 * @param observationRegistry where hook invocations are observed
	 * @param convention the convention for those observations, {@code null} for
	 * {@link io.mantlehooks.observation.DefaultHookObservationConvention}
	 */
	public HookRunner(HookRegistry registry, Executor executor, ObservationRegistry observationRegistry,
			@Nullable HookObservationConvention convention) {
		this(registry, executor, observationRegistry, convention, new HookWait(HookWait.DEFAULT_SPIN));
	}

	/**
	 * Create a runner that reports each hook invocation as a {@code mantle.hook}
	 * observation, and whose awaited hooks are waited for as given.
	 * @param registry the hooks
	 * @param executor the executor that runs hooks; each task restores the turn's context
	 * itself
	 * @param observationRegistry where hook invocations are observed
	 * @param convention the convention for those observations, {@code null} for
	 * {@link io.mantlehooks.observation.DefaultHookObservationConvention}
	 * @param wait how a turn's thread waits for a hook it awaits
	 */
	public HookRunner(HookRegistry registry, Executor executor, ObservationRegistry observationRegistry,
			@Nullable HookObservationConvention convention, HookWait wait) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		Assert.notNull(observationRegistry, "'observationRegistry' must not be null");
		Assert.notNull(wait, "'wait' must not be null");
		this.registry = registry;
		this.executor = executor;
		this.wait = wait;
		this.timer = new ScheduledThreadPoolExecutor(1, timerThreadFactory());
		this.timer.setRemoveOnCancelPolicy(true);
		HookDeadlines deadlines = new HookDeadlines(this.timer);
		HookObservations observations = new HookObservations(observationRegistry, convention);
		this.observeLane = new ObserveLane(executor, deadlines, observations);
		this.modifyLane = new ModifyLane(executor, deadlines, observations);
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
	 * Return the executor that runs hooks, for work the turn must not do on its own
	 * (non-blocking) thread.
	 * @return the hook executor
	 */
	public Executor getExecutor() {
		return this.executor;
	}

	/**
	 * Return how a turn's thread waits for a hook it awaits.
	 * @return the wait
	 */
	public HookWait getWait() {
		return this.wait;
	}

	/**
	 * Return the hooks that run in a scope: those of its agent.
	 * @param scope the turn the hooks run for
	 * @return the hooks of the scope's agent
	 */
	public HookRegistry.HookSet hooks(HookScope scope) {
		return this.registry.forAgent(scope.agent());
	}

	/**
	 * Return whether a point has any hook in a scope.
	 * @param point the point
	 * @param scope the turn the hooks run for
	 * @return whether a modify hook or observer of the scope's agent is registered
	 */
	public boolean hasHooks(HookPoint point, HookScope scope) {
		return hooks(scope).hasHooks(point);
	}

	/**
	 * Return whether a point has a modify hook in a scope.
	 * @param point the point
	 * @param scope the turn the hooks run for
	 * @return whether a modify hook of the scope's agent is registered
	 */
	public boolean hasModifier(HookPoint point, HookScope scope) {
		return hooks(scope).hasModifier(point);
	}

	/**
	 * Return whether a point has observers in a scope.
	 * @param point the point
	 * @param scope the turn the hooks run for
	 * @return whether an observe hook of the scope's agent is registered
	 */
	public boolean hasObservers(HookPoint point, HookScope scope) {
		return hooks(scope).hasObservers(point);
	}

	/**
	 * Start the observers of a point and return at once. Each runs on the hook executor
	 * with the payload (immutable, shared) and its own timeout; what they throw is logged
	 * and discarded.
	 * @param point the point
	 * @param payload the payload, of the point's payload type
	 * @param scope the turn the hooks run for
	 */
	public void observe(HookPoint point, HookPayload payload, HookScope scope) {
		List<HookMethod> observers = observers(point, scope);
		if (observers.isEmpty()) {
			return;
		}
		checkPayload(point, payload);
		this.observeLane.start(observers, payload, scope);
	}

	/**
	 * Run the hooks of a point: the modify hook within its timeout, then the observers
	 * with the payload that proceeds (on a signal or a failure, the payload as received).
	 * @param <P> the payload type
	 * @param point the point
	 * @param payload the payload, of the point's payload type
	 * @param scope the turn the hooks run for
	 * @return a future of the payload to continue with (the input when the point has no
	 * modify hook), a signal the point allows, or a failure to apply the point's fail
	 * policy to; it never completes exceptionally
	 */
	public <P extends HookPayload> CompletableFuture<ModifyResult<P>> run(HookPoint point, P payload, HookScope scope) {
		return run(point, payload, scope, this.executor);
	}

	private <P extends HookPayload> CompletableFuture<ModifyResult<P>> run(HookPoint point, P payload, HookScope scope,
			Executor launcher) {
		CompletableFuture<ModifyResult<P>> result = startModifier(point, payload, scope, launcher);
		if (result == null) {
			observe(point, payload, scope);
			return CompletableFuture.completedFuture(new ModifyResult.Proceed<>(payload));
		}
		List<HookMethod> observers = observers(point, scope);
		if (observers.isEmpty()) {
			return result;
		}
		// admitted now, so they count as in flight before the turn goes on; started once
		// the modify hook has decided, after the turn's own continuation: a future runs
		// its later dependents first, so the turn does not wait for the hand-off
		List<HookMethod> admitted = this.observeLane.admit(observers, scope);
		if (!admitted.isEmpty()) {
			result.whenComplete((decided, ex) -> {
				// cancelled by a caller: the observers still see the payload as received
				HookPayload seen = (decided instanceof ModifyResult.Proceed<P> proceed) ? proceed.payload() : payload;
				this.observeLane.dispatch(admitted, seen, scope);
			});
		}
		return result;
	}

	/**
	 * Run only the modify hook of a point, as {@link #run} does, without its observers:
	 * for a part of a payload whose whole the observers see later (a segment of a
	 * streamed reply).
	 * @param <P> the payload type
	 * @param point the point
	 * @param payload the payload, of the point's payload type
	 * @param scope the turn the hook runs for
	 * @return a future of what the modify hook decided (the input when the point has
	 * none); it never completes exceptionally
	 */
	public <P extends HookPayload> CompletableFuture<ModifyResult<P>> runModifier(HookPoint point, P payload,
			HookScope scope) {
		CompletableFuture<ModifyResult<P>> result = startModifier(point, payload, scope, this.executor);
		return (result != null) ? result : CompletableFuture.completedFuture(new ModifyResult.Proceed<>(payload));
	}

	/**
	 * Run the hooks of a point on a sequence of payloads, one payload after another, as
	 * {@link #run} does for each (the modify hook under its own timeout, then the
	 * observers with the payload that proceeds), but in one hand-off to the hook executor
	 * for the whole sequence instead of one per payload: one task runs the invocations on
	 * its thread. An invocation that does not return there in time (a timeout, a stage
	 * still pending) hands the rest of the sequence to the task that completes its
	 * result, so a hook still holds the caller no longer than its timeout.
	 * @param <P> the payload type
	 * @param point the point
	 * @param sequence the payloads, and what to do with each result
	 * @param scope the turn the hooks run for
	 * @return a future that completes when the sequence ended, on a hook-executor thread
	 * when the point has a modify hook (at once without one); it completes exceptionally
	 * only with what the sequence itself threw
	 */
	public <P extends HookPayload> CompletableFuture<@Nullable Void> runEach(HookPoint point, Sequence<P> sequence,
			HookScope scope) {
		Assert.notNull(sequence, "'sequence' must not be null");
		HookMethod modifier = hooks(scope).modifier(point);
		if (modifier != null && !scope.skips(modifier.name())) {
			return new ModifySequence<>(this.modifyLane, modifier, scope, checked(point, sequence),
					observers(point, scope), this.observeLane)
				.start(this.executor);
		}
		// nothing to wait for: the observers start and each payload proceeds at once
		try {
			for (P payload = sequence.next(); payload != null; payload = sequence.next()) {
				observe(point, payload, scope);
				if (!sequence.accept(new ModifyResult.Proceed<>(payload))) {
					break;
				}
			}
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return CompletableFuture.completedFuture(null);
	}

	private static <P extends HookPayload> Sequence<P> checked(HookPoint point, Sequence<P> sequence) {
		return new Sequence<>() {

			@Override
			public @Nullable P next() {
				P payload = sequence.next();
				if (payload != null) {
					checkPayload(point, payload);
				}
				return payload;
			}

			@Override
			public boolean accept(ModifyResult<P> result) {
				return sequence.accept(result);
			}

		};
	}

	/**
	 * Start the point's modify hook, unless it has none that runs in the scope.
	 * @return its future, or {@code null} when no modify hook runs
	 */
	private <P extends HookPayload> @Nullable CompletableFuture<ModifyResult<P>> startModifier(HookPoint point,
			P payload, HookScope scope, Executor launcher) {
		HookMethod modifier = hooks(scope).modifier(point);
		if (modifier == null || scope.skips(modifier.name())) {
			return null;
		}
		checkPayload(point, payload);
		return this.modifyLane.start(modifier, payload, scope, launcher);
	}

	/**
	 * The observers of a point that run in the scope: those of its agent but a hook whose
	 * own call the scope belongs to.
	 */
	private List<HookMethod> observers(HookPoint point, HookScope scope) {
		List<HookMethod> observers = hooks(scope).observers(point);
		if (observers.isEmpty() || !scope.skipsAny()) {
			return observers;
		}
		return observers.stream().filter((observer) -> !scope.skips(observer.name())).toList();
	}

	/**
	 * Run the hooks of a point as {@link #run} does and wait for the modify hook. When
	 * the calling thread is interrupted while it waits, the hook goes on (its result is
	 * dropped) and the result is a failure of kind {@link HookFailure.Kind#INTERRUPTED},
	 * with the thread's interrupt flag set again.
	 * @param <P> the payload type
	 * @param point the point
	 * @param payload the payload
	 * @param scope the turn the hooks run for
	 * @return what the modify hook decided
	 */
	public <P extends HookPayload> ModifyResult<P> runAndWait(HookPoint point, P payload, HookScope scope) {
		return runAndWait(point, payload, scope, this.executor, this.wait, false);
	}

	/**
	 * Run the hooks of a point as {@link #runAndWait(HookPoint, HookPayload, HookScope)}
	 * does, with the modify hook handed to a thread the caller keeps for a sequence of
	 * such waits ({@link #keepThread()}) instead of a new hook-executor task.
	 * @param <P> the payload type
	 * @param point the point
	 * @param payload the payload
	 * @param scope the turn the hooks run for
	 * @param thread the kept thread
	 * @return what the modify hook decided
	 */
	public <P extends HookPayload> ModifyResult<P> runAndWait(HookPoint point, P payload, HookScope scope,
			KeptHookThread thread) {
		Assert.notNull(thread, "'thread' must not be null");
		thread.callerWaiting(true);
		try {
			// a kept thread that spins now takes this invocation, and lets go of its
			// spinner's slot as it does: the wait may wait for that slot rather than park
			boolean toSpinner = thread.isSpinning();
			return runAndWait(point, payload, scope, thread, thread.callerWait(), toSpinner);
		}
		finally {
			thread.callerWaiting(false);
		}
	}

	/**
	 * Return a hook thread to keep for a sequence of awaited invocations, one after
	 * another, such as the tool-result hooks of one tool batch; close it when the
	 * sequence ends. It spins as a turn's waits do, but backs off on its own: how late
	 * one batch's results came (a slow tool, a pause) says nothing about the next batch,
	 * and a backing off carried over keeps a whole batch's results on the executor, each
	 * waking the thread that waits for it.
	 * @return the kept thread, started by its first invocation
	 */
	public KeptHookThread keepThread() {
		return new KeptHookThread(this.executor, this.wait.sibling());
	}

	private <P extends HookPayload> ModifyResult<P> runAndWait(HookPoint point, P payload, HookScope scope,
			Executor launcher, HookWait wait, boolean toSpinner) {
		CompletableFuture<ModifyResult<P>> result = run(point, payload, scope, launcher);
		try {
			return toSpinner ? wait.getFromKeptThread(result) : wait.get(result);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			HookMethod modifier = hooks(scope).modifier(point);
			return new ModifyResult.Failed<>(new HookFailure((modifier != null) ? modifier.name() : "", point,
					HookFailure.Kind.INTERRUPTED, null));
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Hook results never complete exceptionally", ex);
		}
	}

	/**
	 * Return how many observe invocations were dropped because their hook already had
	 * {@code mantle.hooks.observers.max-concurrent} in flight.
	 * @return the number of dropped invocations since startup, all observers together
	 */
	public long getDroppedObserverInvocations() {
		return sum(HookLane.OBSERVE, HookMethod::rejectedInvocations);
	}

	/**
	 * Return how many observe invocations are in flight now.
	 * @return the number of running (or abandoned, still running) observe invocations
	 */
	public int getObserversInFlight() {
		return (int) sum(HookLane.OBSERVE, HookMethod::inFlight);
	}

	/**
	 * Return how many modify invocations are in flight now.
	 * @return the number of running (or abandoned after a timeout, still running) modify
	 * invocations
	 */
	public int getModifiersInFlight() {
		return (int) sum(HookLane.MODIFY, HookMethod::inFlight);
	}

	private long sum(HookLane lane, ToLongFunction<HookMethod> value) {
		long total = 0;
		for (HookMethod hook : this.registry.hooks()) {
			if (hook.lane() == lane) {
				total += value.applyAsLong(hook);
			}
		}
		return total;
	}

	private static void checkPayload(HookPoint point, HookPayload payload) {
		Assert.isInstanceOf(point.payloadType(), payload, () -> "Payload for point " + point.configName());
	}

	@Override
	public void destroy() {
		// observers added right before the close wait for the sweep, which ends here
		this.observeLane.flush();
		this.timer.shutdownNow();
		try {
			this.timer.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Payloads that go through a point's hooks one after another ({@link #runEach}), and
	 * what becomes of each result. Both methods are called by one thread at a time, in
	 * turn, each call seeing what the previous ones did.
	 *
	 * @param <P> the payload type
	 */
	public interface Sequence<P extends HookPayload> {

		/**
		 * Return the next payload.
		 * @return the payload, {@code null} when the sequence ends
		 */
		@Nullable P next();

		/**
		 * Take what the modify hook decided for the payload {@link #next()} returned
		 * last.
		 * @param result the payload that proceeds, a signal, or a failure to apply the
		 * point's fail policy to
		 * @return whether the sequence goes on
		 */
		boolean accept(ModifyResult<P> result);

	}

}
