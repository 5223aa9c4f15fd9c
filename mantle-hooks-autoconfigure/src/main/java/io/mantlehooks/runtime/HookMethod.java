package io.mantlehooks.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.annotation.StreamMode;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * A validated hook: the bean method, the point and lane it serves, how it returns its
 * result and the timeout that guards each invocation.
 */
public final class HookMethod {

	private static final HookOutcome[] OUTCOMES = HookOutcome.values();

	private final String name;

	private final HookPoint point;

	private final HookLane lane;

	private final Method method;

	private final Supplier<Object> bean;

	private final InvocationStyle style;

	private final Duration timeout;

	private final TimeoutSource timeoutSource;

	/**
	 * A modify hook's time limiter; observers have none (their timeout is never awaited).
	 */
	private final @Nullable TimeLimiter timeLimiter;

	private final Bulkhead bulkhead;

	private final @Nullable CircuitBreaker circuitBreaker;

	private final @Nullable BreakerTransitions breakerTransitions;

	/**
	 * Outcome counts, each made on the hook's first invocation with that outcome: most
	 * hooks only ever see one or two outcomes, and a thousand hooks made ten each at
	 * startup, before the JIT has compiled anything.
	 */
	private final AtomicReferenceArray<LongAdder> outcomes = new AtomicReferenceArray<>(OUTCOMES.length);

	private final AtomicBoolean slowSynchronousPartReported = new AtomicBoolean();

	private final AtomicLong rejected = new AtomicLong();

	/**
	 * Invocations in flight: running, or abandoned after their timeout and still running.
	 */
	private final AtomicInteger inFlight = new AtomicInteger();

	/** Invocations abandoned after their timeout whose method still runs. */
	private final AtomicInteger abandoned = new AtomicInteger();

	private final int maxAbandoned;

	private final StreamMode streamMode;

	private final Set<String> agents;

	/**
	 * Create a hook.
	 * @param beanName the name of the bean the method is called on
	 * @param point the point it serves
	 * @param lane the lane it runs in
	 * @param method the method, invocable on the bean (through its proxy, if any)
	 * @param bean what returns the bean when the hook is invoked
	 * @param timeout the timeout of one invocation
	 * @param timeoutSource where the timeout came from
	 * @param guards the hook's Resilience4j guards
	 * @param streamMode what it sees of a streamed reply
	 * @param agents the agents it is scoped to, empty for every agent
	 */
	public HookMethod(String beanName, HookPoint point, HookLane lane, Method method, Supplier<Object> bean,
			Duration timeout, TimeoutSource timeoutSource, Guards guards, StreamMode streamMode, Set<String> agents) {
		this.streamMode = streamMode;
		this.agents = Set.copyOf(agents);
		this.name = beanName + "." + method.getName();
		this.point = point;
		this.lane = lane;
		this.method = method;
		this.bean = bean;
		this.style = InvocationStyle.of(method);
		this.timeout = timeout;
		this.timeoutSource = timeoutSource;
		this.timeLimiter = guards.timeLimiter();
		this.bulkhead = guards.bulkhead();
		this.maxAbandoned = this.bulkhead.getBulkheadConfig().getMaxConcurrentCalls();
		this.circuitBreaker = guards.circuitBreaker();
		this.breakerTransitions = (this.circuitBreaker != null) ? new BreakerTransitions(this.circuitBreaker, this.name)
				: null;
		ReflectionUtils.makeAccessible(method);
		// a public method of a public class is callable without it, but then every call
		// checks the caller's access again (a stack walk per hook invocation)
		method.trySetAccessible();
	}

	/**
	 * Return the agents the hook is scoped to with
	 * {@link io.mantlehooks.annotation.ForAgent}.
	 * @return the agents' names, empty when the hook belongs to every agent
	 */
	public Set<String> agents() {
		return this.agents;
	}

	/**
	 * Return whether the hook runs in turns of an agent.
	 * @param agent the agent's name
	 * @return whether it belongs to that agent (or to every agent)
	 */
	public boolean belongsTo(String agent) {
		return this.agents.isEmpty() || this.agents.contains(agent);
	}

	/**
	 * Return the hook's name, {@code beanName.methodName}, as used in logs and in
	 * {@code mantle.hooks.timeouts.hook} keys.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return the point the hook serves.
	 * @return the point
	 */
	public HookPoint point() {
		return this.point;
	}

	/**
	 * Return the lane the hook runs in.
	 * @return the lane
	 */
	public HookLane lane() {
		return this.lane;
	}

	/**
	 * Return the bean method behind the hook.
	 * @return the invocable method
	 */
	public Method method() {
		return this.method;
	}

	/**
	 * Return what the hook sees of a streamed reply: the whole reply, or each sentence as
	 * it completes ({@code SENTENCES} is only ever set on an outgoing-text modify hook).
	 * @return the stream mode
	 */
	public StreamMode streamMode() {
		return this.streamMode;
	}

	/**
	 * Return the timeout of one invocation.
	 * @return the timeout
	 */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Return where the timeout came from.
	 * @return the source of the timeout
	 */
	public TimeoutSource timeoutSource() {
		return this.timeoutSource;
	}

	/**
	 * Return the hook's circuit breaker.
	 * @return the breaker; {@code null} for observe hooks and when circuit breakers are
	 * disabled
	 */
	public @Nullable CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

	/**
	 * Log a change of the circuit breaker's state, after a call that may have moved it.
	 * @param scope the turn of the call
	 */
	public void breakerMayHaveMoved(HookScope scope) {
		BreakerTransitions transitions = this.breakerTransitions;
		if (transitions != null) {
			transitions.check(scope);
		}
	}

	/**
	 * Return how many invocations ended with each outcome since startup.
	 * @return the counts, in {@link HookOutcome} order, outcomes never seen included
	 */
	public Map<HookOutcome, Long> outcomeCounts() {
		Map<HookOutcome, Long> counts = new EnumMap<>(HookOutcome.class);
		for (HookOutcome outcome : OUTCOMES) {
			LongAdder count = this.outcomes.get(outcome.ordinal());
			counts.put(outcome, (count != null) ? count.sum() : 0L);
		}
		return counts;
	}

	public void count(HookOutcome outcome) {
		LongAdder count = this.outcomes.get(outcome.ordinal());
		if (count == null) {
			count = firstCount(outcome.ordinal());
		}
		count.increment();
	}

	private LongAdder firstCount(int index) {
		LongAdder created = new LongAdder();
		// of two threads counting the first of an outcome at once, one count is kept
		return this.outcomes.compareAndSet(index, null, created) ? created : this.outcomes.get(index);
	}

	public InvocationStyle style() {
		return this.style;
	}

	/**
	 * Return the modify hook's time limiter, which publishes its timeouts (events and
	 * metrics).
	 */
	public TimeLimiter timeLimiter() {
		TimeLimiter limiter = this.timeLimiter;
		Assert.state(limiter != null, () -> "Observe hook '" + this.name + "' has no time limiter");
		return limiter;
	}

	/**
	 * Return the hook's own bulkhead. Its permits are the abandoned invocations this hook
	 * may hold ({@code max-concurrent}): each invocation that outlives its timeout while
	 * its method still runs takes one until the method returns, so Resilience4j's
	 * bulkhead meters show how close a hung hook is to being refused.
	 * @return the bulkhead
	 */
	public Bulkhead bulkhead() {
		return this.bulkhead;
	}

	/**
	 * Admit an invocation. Load is not a fault: only abandoned invocations (past their
	 * timeout, method still running) count against {@code max-concurrent}, so a hook is
	 * refused only while it holds that many of them, hung. Healthy invocations are never
	 * limited, however many run at once, also while a few stragglers of the hook still
	 * run. A hook that hangs from the start holds at most {@code max-concurrent}
	 * abandoned threads plus the invocations it admitted while its first ones were still
	 * within their timeout.
	 * @return whether the hook may be invoked now; if so, {@link #finished()} must follow
	 */
	public boolean tryAdmit() {
		if (this.abandoned.get() >= this.maxAbandoned) {
			return false;
		}
		this.inFlight.incrementAndGet();
		return true;
	}

	/**
	 * An admitted invocation has really stopped: its thread is free and its stage, if
	 * any, settled.
	 */
	public void finished() {
		this.inFlight.decrementAndGet();
	}

	/**
	 * An invocation outlived its timeout while its method still runs.
	 * @return whether it took a permit of the hook's bulkhead, to give back in
	 * {@link #caughtUp(boolean)}
	 */
	public boolean abandoned() {
		this.abandoned.incrementAndGet();
		// Resilience4j's semaphore refuses an interrupted caller; the count must not
		boolean interrupted = Thread.interrupted();
		try {
			return this.bulkhead.tryAcquirePermission();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * An abandoned invocation's method returned at last.
	 * @param heldPermit what {@link #abandoned()} returned for it
	 */
	public void caughtUp(boolean heldPermit) {
		this.abandoned.decrementAndGet();
		if (heldPermit) {
			this.bulkhead.onComplete();
		}
	}

	/**
	 * Return how many invocations in flight this hook has now (running, or abandoned
	 * after a timeout and not yet returned).
	 * @return the invocations in flight
	 */
	public int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * Return how many invocations of this hook outlived their timeout and still run.
	 * @return the abandoned invocations now
	 */
	public int abandonedInFlight() {
		return this.abandoned.get();
	}

	/**
	 * Return how many invocations of this hook were refused because it holds
	 * {@code max-concurrent} abandoned invocations (a hung hook): dropped observers, or
	 * modify calls that got the fail policy at once.
	 * @return the refused invocations since startup
	 */
	public long rejectedInvocations() {
		return this.rejected.get();
	}

	/**
	 * Count a refused invocation.
	 * @return {@code true} for the first one, so it is logged once
	 */
	public boolean reject() {
		return this.rejected.getAndIncrement() == 0;
	}

	/**
	 * Return the most abandoned invocations this hook may hold before it is refused
	 * ({@code max-concurrent} of its lane).
	 * @return the limit
	 */
	public int maxAbandoned() {
		return this.maxAbandoned;
	}

	/**
	 * Call the method and return what it returned, rethrowing what it threw unwrapped.
	 */
	public @Nullable Object invoke(Object payload) throws Exception {
		try {
			return this.method.invoke(this.bean.get(), payload);
		}
		catch (InvocationTargetException ex) {
			Throwable target = ex.getTargetException();
			if (target instanceof Exception exception) {
				throw exception;
			}
			if (target instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	public CompletableFuture<@Nullable Object> toFuture(Object returned) {
		return this.style.toFuture(returned);
	}

	/**
	 * Note that the synchronous part of this asynchronous hook overran its timeout.
	 * @return {@code true} the first time only, so the warning names the hook once
	 */
	public boolean markSlowSynchronousPartReported() {
		return this.slowSynchronousPartReported.compareAndSet(false, true);
	}

	@Override
	public String toString() {
		return this.name + " (" + this.lane.name().toLowerCase() + " " + this.point.configName() + ", timeout "
				+ this.timeout.toMillis() + "ms" + (this.agents.isEmpty() ? "" : ", agents " + this.agents) + ")";
	}

	/**
	 * A hook's Resilience4j guards, named {@code beanName.methodName@point} in their
	 * registries.
	 *
	 * @param timeLimiter a modify hook's time limiter, which publishes each outcome;
	 * {@code null} for observers, whose timeout nobody awaits
	 * @param bulkhead the hook's bulkhead: the abandoned invocations it may hold
	 * @param circuitBreaker a modify hook's circuit breaker; {@code null} for observers
	 * and when circuit breakers are disabled
	 */
	public record Guards(@Nullable TimeLimiter timeLimiter, Bulkhead bulkhead,
			@Nullable CircuitBreaker circuitBreaker) {
	}

}
