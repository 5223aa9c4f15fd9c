package io.mantlehooks.runtime.execution;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.mantlehooks.HookFailure;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.observation.HookObservationConvention;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
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
	 * itself. A {@link HookThreadPool} replaces the threads of timed-out hooks that still
	 * run.
	 * @param observationRegistry where hook invocations are observed
	 * @param convention the convention for those observations, {@code null} for
	 * {@link io.mantlehooks.observation.DefaultHookObservationConvention}
	 */
	public HookRunner(HookRegistry registry, Executor executor, ObservationRegistry observationRegistry,
			@Nullable HookObservationConvention convention) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		Assert.notNull(observationRegistry, "'observationRegistry' must not be null");
		this.registry = registry;
		// one deadline per running hook, cancelled when it ends
		this.timer = new ScheduledThreadPoolExecutor(1, timerThreadFactory());
		this.timer.setRemoveOnCancelPolicy(true);
		HookObservations observations = new HookObservations(observationRegistry, convention);
		this.observeLane = new ObserveLane(executor, this.timer, observations);
		this.modifyLane = new ModifyLane(executor, this.timer, observations);
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
		CompletableFuture<ModifyResult<P>> result = startModifier(point, payload, scope);
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
		CompletableFuture<ModifyResult<P>> result = startModifier(point, payload, scope);
		return (result != null) ? result : CompletableFuture.completedFuture(new ModifyResult.Proceed<>(payload));
	}

	/**
	 * Run the hooks of a point on a sequence of payloads, one payload after another, as
	 * {@link #run} does for each (the modify hook under its own timeout, then the
	 * observers with the payload that proceeds): the next payload's hooks start once the
	 * previous result was accepted. Cancelling the returned future stops the sequence
	 * before its next payload.
	 * @param <P> the payload type
	 * @param point the point
	 * @param sequence the payloads, and what to do with each result
	 * @param scope the turn the hooks run for
	 * @return a future that completes when the sequence ended; it completes exceptionally
	 * only with what the sequence itself threw
	 */
	public <P extends HookPayload> CompletableFuture<@Nullable Void> runEach(HookPoint point, Sequence<P> sequence,
			HookScope scope) {
		Assert.notNull(sequence, "'sequence' must not be null");
		CompletableFuture<@Nullable Void> done = new CompletableFuture<>();
		runFrom(point, sequence, scope, done);
		return done;
	}

	/**
	 * Run the sequence's payloads until one waits for its hook; the rest follow from that
	 * hook's result, so a long sequence uses constant stack.
	 */
	private <P extends HookPayload> void runFrom(HookPoint point, Sequence<P> sequence, HookScope scope,
			CompletableFuture<@Nullable Void> done) {
		try {
			while (!done.isDone()) {
				P payload = sequence.next();
				if (payload == null) {
					done.complete(null);
					return;
				}
				CompletableFuture<ModifyResult<P>> result = run(point, payload, scope);
				if (!result.isDone()) {
					result.whenComplete((decided, ex) -> {
						if (accepted(sequence, decided, ex, done)) {
							runFrom(point, sequence, scope, done);
						}
					});
					return;
				}
				if (!accepted(sequence, result.join(), null, done)) {
					return;
				}
			}
		}
		catch (Throwable ex) {
			done.completeExceptionally(ex);
		}
	}

	/**
	 * Hand a result to the sequence, unless it was cancelled.
	 * @return whether the sequence goes on
	 */
	private static <P extends HookPayload> boolean accepted(Sequence<P> sequence, @Nullable ModifyResult<P> decided,
			@Nullable Throwable ex, CompletableFuture<@Nullable Void> done) {
		if (done.isDone()) {
			return false;
		}
		try {
			if (ex != null || decided == null) {
				// the lane's results never complete exceptionally
				throw new IllegalStateException("Hook result without a decision", ex);
			}
			if (sequence.accept(decided)) {
				return true;
			}
			done.complete(null);
		}
		catch (Throwable failure) {
			done.completeExceptionally(failure);
		}
		return false;
	}

	/**
	 * Start the point's modify hook, unless it has none that runs in the scope.
	 * @return its future, or {@code null} when no modify hook runs
	 */
	private <P extends HookPayload> @Nullable CompletableFuture<ModifyResult<P>> startModifier(HookPoint point,
			P payload, HookScope scope) {
		HookMethod modifier = hooks(scope).modifier(point);
		if (modifier == null || scope.skips(modifier.name())) {
			return null;
		}
		checkPayload(point, payload);
		return this.modifyLane.start(modifier, payload, scope);
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
		CompletableFuture<ModifyResult<P>> result = run(point, payload, scope);
		try {
			return HookThreadPool.await(result);
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

	/**
	 * Return how many hook invocations outlived their timeout and still run, both lanes.
	 * @return the abandoned invocations now
	 */
	public int getAbandoned() {
		return (int) (sum(HookLane.OBSERVE, HookMethod::abandonedInFlight)
				+ sum(HookLane.MODIFY, HookMethod::abandonedInFlight));
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
