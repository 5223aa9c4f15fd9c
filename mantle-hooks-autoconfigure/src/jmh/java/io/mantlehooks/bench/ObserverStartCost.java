package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.execution.HookRunner;
import org.slf4j.MDC;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * What starting an observer costs in CPU: the engine's own path
 * ({@link HookRunner#observe}: admission, the shared payload, the invocation with its
 * timeout, one task per observer on the hook executor, the caller's context restored
 * there, the outcome) for observers that do nothing, against a bare hand-off of an empty
 * task to the same hook executor. Prints, per variant, the process's CPU time per
 * observer (all threads) and the calling thread's, the median of the measured rounds;
 * the variants take turns in every round, so load on a shared machine hits them alike.
 * <p>
 * {@code burst}: a thousand starts, then a wait for all of them (observers of many
 * turns at once); {@code paced}: a start every {@value #PACE_MICROS} µs, as the
 * observer points of many concurrent turns come (a thousand streamed turns of 50 ms with
 * five observed points each start one every 10 µs), the caller spinning in between;
 * {@code single}: each start waits for its observers (one turn at a time). {@code 1} or
 * {@code 10} observers at the point. The hook side is the process's CPU time less the
 * caller's: what the starts cost the hook threads (the paced caller's spinning is its
 * own).
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.ObserverStartCost -Dbench.args="20 10"} (warm-up and
 * measured rounds)
 */
public final class ObserverStartCost {

	private static final int BURST = 1_000;

	private static final int STARTS_PER_ROUND = 20_000;

	private static final int PACE_MICROS = 20;

	private ObserverStartCost() {
	}

	public static void main(String[] args) throws InterruptedException {
		int warmUp = (args.length > 0) ? Integer.parseInt(args[0]) : 20;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 10;
		ConfigurableApplicationContext one = BenchApplication.start(new BenchModels.Instant(), OneObserver.class,
				Map.of());
		ConfigurableApplicationContext ten = BenchApplication.start(new BenchModels.Instant(), TenObservers.class,
				Map.of());
		Executor executor = one.getBean(MantleHooksAutoConfiguration.HOOK_EXECUTOR_BEAN_NAME, Executor.class);
		Starter bare = (done) -> executor.execute(done);
		Variant[] variants = { new Variant("bare hand-off, burst", 1, Mode.BURST, bare),
				new Variant("bare hand-off, paced", 1, Mode.PACED, bare),
				new Variant("bare hand-off, single", 1, Mode.SINGLE, bare),
				new Variant("1 observer, burst", 1, Mode.BURST, observe(one)),
				new Variant("1 observer, paced", 1, Mode.PACED, observe(one)),
				new Variant("1 observer, single", 1, Mode.SINGLE, observe(one)),
				new Variant("10 observers, burst", 10, Mode.BURST, observe(ten)),
				new Variant("10 observers, paced", 10, Mode.PACED, observe(ten)),
				new Variant("10 observers, single", 10, Mode.SINGLE, observe(ten)) };
		System.out.println("Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
		for (int i = 0; i < warmUp + rounds; i++) {
			for (Variant variant : variants) {
				variant.round(i >= warmUp);
			}
		}
		System.out.printf("%-24s | %18s | %18s | %16s | %11s%n", "variant", "process CPU µs/obs",
				"caller CPU µs/obs", "hook side µs/obs", "x bare hook side");
		for (int i = 0; i < variants.length; i++) {
			Variant variant = variants[i];
			Variant floor = variants[i % 3];
			System.out.printf("%-24s | %18.2f | %18.2f | %16.2f | %11.2f%n", variant.name,
					variant.median(variant.processCpu), variant.median(variant.callerCpu),
					variant.median(variant.hookSideCpu), variant.median(variant.hookSideCpu) / floor.median(floor.hookSideCpu));
		}
		one.close();
		ten.close();
	}

	/**
	 * Starts the point's observers through the engine, on a scope that carries the
	 * caller's context as a turn's does (an MDC entry among it).
	 */
	private static Starter observe(ConfigurableApplicationContext context) {
		HookRunner runner = context.getBean(HookRunner.class);
		MDC.put("request_id", "bench");
		HookScope scope = HookScope.of("turn-1", CallerContext.capture());
		MDC.clear();
		TurnStartedPayload payload = new TurnStartedPayload(false, "turn-1", "user-1", Map.of(), Channel.none());
		return (done) -> runner.observe(HookPoint.TURN_STARTED, payload, scope);
	}


	enum Mode {

		BURST, PACED, SINGLE

	}

	@FunctionalInterface
	interface Starter {

		/**
		 * Start once; {@code done} is for a bare task to run (observers count themselves).
		 */
		void start(Runnable done);

	}

	private static final class Variant {

		private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

		final String name;

		private final int observersPerStart;

		private final Mode mode;

		private final Starter starter;

		final double[] processCpu;

		final double[] callerCpu;

		final double[] hookSideCpu;

		private int measured;

		Variant(String name, int observersPerStart, Mode mode, Starter starter) {
			this.name = name;
			this.observersPerStart = observersPerStart;
			this.mode = mode;
			this.starter = starter;
			this.processCpu = new double[64];
			this.callerCpu = new double[64];
			this.hookSideCpu = new double[64];
		}

		void round(boolean measure) throws InterruptedException {
			int starts = (this.mode == Mode.SINGLE) ? STARTS_PER_ROUND / 10 : STARTS_PER_ROUND;
			int step = switch (this.mode) {
				case BURST -> BURST;
				case PACED -> starts;
				case SINGLE -> 1;
			};
			long process = ProcessCpu.nanos();
			long caller = THREADS.getCurrentThreadCpuTime();
			for (int done = 0; done < starts; done += step) {
				Counting.expect(step * this.observersPerStart);
				long next = System.nanoTime();
				for (int i = 0; i < step; i++) {
					if (this.mode == Mode.PACED) {
						next += PACE_MICROS * 1_000L;
						while (System.nanoTime() < next) {
							Thread.onSpinWait();
						}
					}
					this.starter.start(Counting::ran);
				}
				Counting.await();
			}
			if (measure) {
				double observers = (double) starts * this.observersPerStart;
				long processNanos = ProcessCpu.nanos() - process;
				long callerNanos = THREADS.getCurrentThreadCpuTime() - caller;
				this.processCpu[this.measured] = processNanos / 1e3 / observers;
				this.callerCpu[this.measured] = callerNanos / 1e3 / observers;
				this.hookSideCpu[this.measured] = (processNanos - callerNanos) / 1e3 / observers;
				this.measured++;
			}
		}

		double median(double[] values) {
			return ProcessCpu.median(values, this.measured);
		}

	}

	/**
	 * Counts the runs of a batch and lets the caller wait for the last without spinning
	 * (a spinning caller would be counted in the process's CPU).
	 */
	static final class Counting {

		private static final AtomicLong remaining = new AtomicLong();

		private static volatile CountDownLatch batch = new CountDownLatch(0);

		private Counting() {
		}

		static void expect(int runs) {
			batch = new CountDownLatch(1);
			remaining.set(runs);
		}

		static void ran() {
			if (remaining.decrementAndGet() == 0) {
				batch.countDown();
			}
		}

		static void await() throws InterruptedException {
			if (!batch.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Observers did not all run: " + remaining.get() + " left");
			}
		}

	}

	/**
	 * One observer at turn start that only counts.
	 */
	public static class OneObserver {

		@OnTurnStarted
		public void started(TurnStartedPayload payload) {
			Counting.ran();
		}

	}

	/**
	 * Ten observers at turn start that only count.
	 */
	public static class TenObservers {

		@OnTurnStarted
		public void started0(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started1(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started2(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started3(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started4(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started5(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started6(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started7(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started8(TurnStartedPayload payload) {
			Counting.ran();
		}

		@OnTurnStarted
		public void started9(TurnStartedPayload payload) {
			Counting.ran();
		}

	}

}
