package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How a turn's thread waits for a hook it must await (a modify hook in {@code .call()}, a
 * tool-result or knowledge hook): it spins for a short while before it parks. A hook that
 * answers within the spin saves its caller the park and the wake-up, two system calls and
 * a trip through the scheduler that cost more than a quick hook's own work (on the 2-core
 * build machine a parked wait costs its caller more than 10 µs of CPU, see the README's
 * "Performance").
 * <p>
 * Spinning is bounded three ways:
 * <ul>
 * <li>by time: {@code mantle.hooks.executor.spin-wait} (20 µs by default, {@code 0} turns
 * it off, at most {@link #MAX_SPIN});</li>
 * <li>by how many threads spin at once, in the whole JVM: half the processors, none on a
 * single processor (where the spinner would only keep the hook from running);</li>
 * <li>by how it went lately: after {@value #MISSES_BEFORE_BACKING_OFF} spins in a row
 * that the hook outlasted (slow hooks, or a machine too busy to run them at once), only
 * one wait in {@value #PROBE_EVERY} spins, until one is answered in time.</li>
 * </ul>
 * A wait that does not spin, or outlasts its spin, parks as before; nothing else about
 * the wait changes (its result, its interruption, the hook's timeout).
 * <p>
 * A {@link KeptHookThread} spins under the same limits for its next invocation
 * ({@link #spinUntil}), with a backing off of its own ({@link #sibling()}); while the
 * slots are taken it may wait for one within its spin, at most as many such threads at
 * once as may spin. So may the wait for an invocation just handed to a spinning kept
 * thread ({@link #getFromKeptThread}), whose slot that thread is letting go of. A thread
 * waiting for a slot yields its processor every {@value #YIELD_EVERY} looks, so only the
 * slots' holders spin without ever giving way to other threads.
 */
public final class HookWait {

	/** The default of {@code mantle.hooks.executor.spin-wait}. */
	public static final Duration DEFAULT_SPIN = Duration.ofNanos(20_000);

	/** The longest spin allowed: beyond it a spinner holds a processor for nothing. */
	public static final Duration MAX_SPIN = Duration.ofMillis(1);

	/** Waits that park at once, as a plain {@link CompletableFuture#get()}. */
	public static final HookWait PARK = new HookWait(Duration.ZERO);

	static final int MISSES_BEFORE_BACKING_OFF = 8;

	static final int PROBE_EVERY = 16;

	/**
	 * How many spins' time a kept thread may wait for the thread it spins for to be woken
	 * before its own spin's time counts: a wake-up costs a few spins' time on a machine
	 * that is not saturated.
	 */
	static final int NOT_YET_SPINS = 5;

	/**
	 * How many looks a thread waiting for a spinner's slot makes between two yields of
	 * its processor: about a microsecond's spin, while a yield on every look cost a tool
	 * batch a fifth of its speed.
	 */
	static final int YIELD_EVERY = 64;

	/** Threads spinning now, in this JVM: processors are shared by every runner. */
	private static final AtomicInteger spinningInJvm = new AtomicInteger();

	/** Kept threads waiting for a spinner's slot now, in this JVM. */
	private static final AtomicInteger waitingForSlotInJvm = new AtomicInteger();

	private final long spinNanos;

	private final int maxSpinners;

	private final AtomicInteger spinning;

	private final AtomicInteger waitingForSlot;

	/** {@link System#nanoTime()}, but for tests. */
	private final LongSupplier clock;

	/**
	 * Spins in a row the hook outlasted; a hint, so races that lose a count are harmless.
	 */
	private volatile int misses;

	/** Waits while backing off, to pick the ones that probe; a hint as well. */
	private volatile int backedOff;

	/**
	 * Create a wait that spins for at most the given time before it parks.
	 * @param spin how long to spin, {@link Duration#ZERO} to park at once
	 * @throws IllegalArgumentException if the spin is negative or longer than
	 * {@link #MAX_SPIN}
	 */
	public HookWait(Duration spin) {
		this(checked(spin).toNanos(), Runtime.getRuntime().availableProcessors() / 2, spinningInJvm,
				waitingForSlotInJvm);
	}

	HookWait(long spinNanos, int maxSpinners, AtomicInteger spinning) {
		this(spinNanos, maxSpinners, spinning, new AtomicInteger());
	}

	HookWait(long spinNanos, int maxSpinners, AtomicInteger spinning, AtomicInteger waitingForSlot) {
		this(spinNanos, maxSpinners, spinning, waitingForSlot, System::nanoTime);
	}

	/**
	 * Create a wait with all its limits given, and the clock its spins are timed by: for
	 * tests, which move a clock of their own instead of depending on the machine's speed.
	 */
	HookWait(long spinNanos, int maxSpinners, AtomicInteger spinning, AtomicInteger waitingForSlot,
			LongSupplier clock) {
		this.spinNanos = spinNanos;
		this.maxSpinners = maxSpinners;
		this.spinning = spinning;
		this.waitingForSlot = waitingForSlot;
		this.clock = clock;
	}

	/**
	 * Return whether a spin is one a wait may be given: from zero to {@link #MAX_SPIN}.
	 * @param spin the spin
	 * @return whether it is allowed
	 */
	public static boolean isAllowed(Duration spin) {
		return !spin.isNegative() && spin.compareTo(MAX_SPIN) <= 0;
	}

	private static Duration checked(Duration spin) {
		Assert.notNull(spin, "'spin' must not be null");
		Assert.isTrue(isAllowed(spin), () -> "The spin before a wait parks must be between 0 and "
				+ MAX_SPIN.toNanos() / 1000 + "us, but was " + spin.toNanos() / 1000 + "us");
		return spin;
	}

	/**
	 * Return the longest time a wait spins before it parks.
	 * @return the spin, {@link Duration#ZERO} when waits park at once
	 */
	public Duration getSpin() {
		return Duration.ofNanos(this.spinNanos);
	}

	/**
	 * Wait for the future's result, spinning first where that is allowed.
	 * @param <T> the result type
	 * @param future what to wait for
	 * @return its result
	 * @throws InterruptedException if the thread is interrupted while it parks
	 * @throws ExecutionException if the future completed exceptionally
	 */
	public <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
		return spinThenGet(future, false);
	}

	/**
	 * Wait for the result of an invocation just handed to a {@link KeptHookThread}, as
	 * {@link #get} waits, except that when no spinner's slot is free the wait waits for
	 * one within its spin, as kept threads do: the slot is most often held by the kept
	 * thread itself, spinning for the invocation it is about to take, so it frees at
	 * once. At most as many threads wait for a slot as may spin, kept threads included.
	 * @param <T> the result type
	 * @param future what to wait for
	 * @return its result
	 * @throws InterruptedException if the thread is interrupted while it parks
	 * @throws ExecutionException if the future completed exceptionally
	 */
	<T> T getFromKeptThread(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
		return spinThenGet(future, true);
	}

	/**
	 * Spin for the future where this wait may, then take its result, parking if needed.
	 */
	private <T> T spinThenGet(CompletableFuture<T> future, boolean waitForSlot)
			throws InterruptedException, ExecutionException {
		if (!future.isDone() && mayTry()) {
			spin(future::isDone, null, waitForSlot, null);
		}
		return future.get();
	}

	/**
	 * Spin until a condition holds, under this wait's limits, as a wait spins before it
	 * parks: for a thread that would rather stay than be handed back and woken again
	 * ({@link KeptHookThread}). Unlike a wait, it waits for a spinner's slot within its
	 * spin (the thread it spins for is often a waiter that is just letting go of it), but
	 * only one such thread per slot at a time: the others give up at once, which counts
	 * as a spin outlasted.
	 * <p>
	 * The spin's time counts only once {@code notYet} no longer holds: while the thread
	 * that answers is still being woken (it parked for the invocation this thread just
	 * ran), its lateness says nothing about how soon it answers once awake. That wait is
	 * bounded too, by {@value #NOT_YET_SPINS} spins' time, and counts as outlasted when
	 * it runs out.
	 * @param condition what to spin for
	 * @param stop when to stop spinning without the condition, which counts neither as a
	 * spin answered nor as one outlasted
	 * @param notYet while the spin's time does not count yet
	 * @return whether the condition held before the spin ended; {@code false} also when
	 * this wait may not spin now, or was stopped
	 */
	boolean spinUntil(BooleanSupplier condition, BooleanSupplier stop, BooleanSupplier notYet) {
		return condition.getAsBoolean() || (!stop.getAsBoolean() && mayTry() && spin(condition, stop, true, notYet));
	}

	/**
	 * Return a wait with the same spin and the same limit on spinners in this JVM, whose
	 * backing off is its own: what one kind of wait is outlasted by says nothing about
	 * another.
	 * @return the sibling wait
	 */
	HookWait sibling() {
		return new HookWait(this.spinNanos, this.maxSpinners, this.spinning, this.waitingForSlot, this.clock);
	}

	private boolean mayTry() {
		if (this.spinNanos == 0 || this.maxSpinners <= 0) {
			return false;
		}
		if (this.misses < MISSES_BEFORE_BACKING_OFF) {
			return true;
		}
		int waits = this.backedOff + 1;
		this.backedOff = waits;
		return waits % PROBE_EVERY == 0;
	}

	/**
	 * Spin until the condition holds or the spin ends, holding a spinner's slot, or a
	 * place among those waiting for one until a slot is free.
	 * @param done the condition
	 * @param stop when to give up without counting it, {@code null} for never
	 * @param waitForSlot whether to wait for a slot within the spin when none is free
	 * @param notYet while the spin's time does not count yet (within
	 * {@value #NOT_YET_SPINS} spins' time), {@code null} for counting from the start
	 * @return whether the condition held in time
	 */
	private boolean spin(BooleanSupplier done, @Nullable BooleanSupplier stop, boolean waitForSlot,
			@Nullable BooleanSupplier notYet) {
		boolean counting = notYet == null || !notYet.getAsBoolean();
		long deadline = this.clock.getAsLong() + (counting ? this.spinNanos : this.spinNanos * NOT_YET_SPINS);
		AtomicInteger held = take(this.spinning) ? this.spinning
				: (waitForSlot && take(this.waitingForSlot)) ? this.waitingForSlot : null;
		if (held == null) {
			if (waitForSlot) {
				// as many threads wait for a slot as may spin: a busy machine
				missed();
			}
			return false;
		}
		int looks = 0;
		try {
			while (!done.getAsBoolean()) {
				if (!counting && notYet != null && !notYet.getAsBoolean()) {
					counting = true;
					// a spin's time from now, but never past the outer bound: a spin
					// that is already over it (its thread was off the processor) ends now
					long counted = this.clock.getAsLong() + this.spinNanos;
					if (counted - deadline < 0) {
						deadline = counted;
					}
				}
				if (ended(stop, deadline)) {
					return false;
				}
				if (held == this.waitingForSlot && take(this.spinning)) {
					this.waitingForSlot.decrementAndGet();
					held = this.spinning;
				}
				if (held == this.waitingForSlot && ++looks % YIELD_EVERY == 0) {
					// a thread without a slot gives way, now and then, to any thread
					// waiting for this processor: only the slots' holders never do
					Thread.yield();
				}
				else {
					Thread.onSpinWait();
				}
			}
			answered();
			return true;
		}
		finally {
			held.decrementAndGet();
		}
	}

	/**
	 * Whether a spin ends now: stopped, or outlasted (which counts).
	 */
	private boolean ended(@Nullable BooleanSupplier stop, long deadline) {
		if (stop != null && stop.getAsBoolean()) {
			return true;
		}
		if (this.clock.getAsLong() - deadline >= 0) {
			missed();
			return true;
		}
		return false;
	}

	private void answered() {
		if (this.misses != 0) {
			this.misses = 0;
		}
	}

	private void missed() {
		int missed = this.misses;
		if (missed < MISSES_BEFORE_BACKING_OFF) {
			this.misses = missed + 1;
		}
	}

	/**
	 * Take one of {@code maxSpinners} places counted by {@code counter}.
	 */
	private boolean take(AtomicInteger counter) {
		while (true) {
			int now = counter.get();
			if (now >= this.maxSpinners) {
				return false;
			}
			if (counter.compareAndSet(now, now + 1)) {
				return true;
			}
		}
	}

	/**
	 * Return how many threads spin now under this wait's limit: for tests.
	 */
	int spinningNow() {
		return this.spinning.get();
	}

	/**
	 * Return whether waits spin only now and then, after spins the hooks outlasted: for
	 * tests.
	 */
	boolean backingOff() {
		return this.misses >= MISSES_BEFORE_BACKING_OFF;
	}

}
