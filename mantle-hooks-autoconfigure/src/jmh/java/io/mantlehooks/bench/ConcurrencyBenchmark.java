package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.management.OperatingSystemMXBean;
import io.mantlehooks.Callers;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.system.JavaVersion;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Many concurrent turns against a stub model that streams ten chunks over 50 ms (a call
 * takes 50 ms): throughput and time to first token, each as a ratio to plain Spring AI
 * measured in the same run. Variants: plain Spring AI, the starter without hooks,
 * observers only, one 20 ms blocking modify hook (streamed), and the same hook in
 * {@code .call()} turns (one virtual thread per caller on Java 21+).
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure -am verify
 * -Dbench.main=io.mantlehooks.bench.ConcurrencyBenchmark -Dbench.args="1000 5000"}
 */
public final class ConcurrencyBenchmark {

	private static final int TURNS_PER_SLOT = 8;

	private static final int ROUNDS = 5;

	private ConcurrencyBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		List<Integer> concurrencies = new ArrayList<>();
		List<String> only = new ArrayList<>();
		for (String arg : args) {
			if (arg.chars().allMatch(Character::isDigit)) {
				concurrencies.add(Integer.parseInt(arg));
			}
			else {
				only.add(arg);
			}
		}
		if (concurrencies.isEmpty()) {
			concurrencies = List.of(1000, 5000);
		}
		Map<String, Variant> variants = new LinkedHashMap<>();
		variants.put("plain", new Variant(null, false, true));
		variants.put("starter, no hooks", new Variant(null, false, false));
		variants.put("observers only", new Variant(BenchHooks.Observers.class, false, false));
		variants.put("20 ms blocking modify hook, stream", new Variant(BenchHooks.SlowRequestHook.class, false, false));
		variants.put("plain, call", new Variant(null, true, true));
		variants.put("20 ms blocking modify hook, call", new Variant(BenchHooks.SlowRequestHook.class, true, false));
		variants.keySet().removeIf((name) -> !only.isEmpty() && !name.equals("plain") && !name.equals("plain, call")
				&& only.stream().noneMatch(name::contains));
		System.out.println("Java " + JavaVersion.getJavaVersion() + ", " + Runtime.getRuntime().availableProcessors()
				+ " cores; per measurement: concurrency x " + TURNS_PER_SLOT
				+ " turns, at most <concurrency> at once; median of " + ROUNDS + " interleaved rounds");
		Map<String, Running> running = new LinkedHashMap<>();
		variants.forEach((name, variant) -> running.put(name, variant.start()));
		try {
			for (int concurrency : concurrencies) {
				Map<String, List<Result>> rounds = new LinkedHashMap<>();
				for (Running variant : running.values()) {
					variant.run(concurrency, concurrency);
				}
				for (int round = 0; round < ROUNDS; round++) {
					for (Map.Entry<String, Running> entry : running.entrySet()) {
						rounds.computeIfAbsent(entry.getKey(), (key) -> new ArrayList<>())
							.add(entry.getValue().run(concurrency, concurrency * TURNS_PER_SLOT));
					}
				}
				Map<String, Result> medians = new LinkedHashMap<>();
				rounds.forEach((name, results) -> medians.put(name, Result.median(results)));
				print(concurrency, medians);
			}
		}
		finally {
			running.values().forEach(Running::close);
		}
		System.exit(0);
	}

	private static void print(int concurrency, Map<String, Result> results) {
		Result plain = results.get("plain");
		Result plainCall = results.get("plain, call");
		System.out.printf("%n%d concurrent turns%n", concurrency);
		System.out.printf("%-38s %10s %9s %12s %12s %9s %13s %9s %14s%n", "variant", "turns/s", "x plain",
				"TTFT p50 ms", "TTFT p99 ms", "x plain", "CPU us/turn", "x plain", "not the model");
		for (Map.Entry<String, Result> entry : results.entrySet()) {
			Result base = entry.getKey().endsWith("call") ? plainCall : plain;
			Result result = entry.getValue();
			System.out.printf("%-38s %10.0f %9.2f %12.1f %12.1f %9.2f %13.0f %9.2f %14d%n", entry.getKey(),
					result.throughput(), result.throughput() / base.throughput(), result.ttftP50(), result.ttftP99(),
					result.ttftP99() / base.ttftP99(), result.cpuMicrosPerTurn(),
					result.cpuMicrosPerTurn() / base.cpuMicrosPerTurn(), result.notTheModels());
		}
		Result streamHook = results.get("20 ms blocking modify hook, stream");
		Result callHook = results.get("20 ms blocking modify hook, call");
		if (streamHook != null && callHook != null) {
			System.out.printf("20 ms hook: stream throughput / call throughput = %.2f%n",
					streamHook.throughput() / callHook.throughput());
		}
	}

	/**
	 * One measurement; {@code notTheModels} counts replies that are not the model's text
	 * (an error reply of a failed hook, an empty reply), summed over rounds so that none
	 * hides in a median.
	 */
	record Result(double throughput, double ttftP50, double ttftP99, double cpuMicrosPerTurn, long notTheModels) {

		static Result median(List<Result> results) {
			return new Result(median(results.stream().mapToDouble(Result::throughput).toArray()),
					median(results.stream().mapToDouble(Result::ttftP50).toArray()),
					median(results.stream().mapToDouble(Result::ttftP99).toArray()),
					median(results.stream().mapToDouble(Result::cpuMicrosPerTurn).toArray()),
					results.stream().mapToLong(Result::notTheModels).sum());
		}

		private static double median(double[] values) {
			Arrays.sort(values);
			return values[values.length / 2];
		}

	}

	record Variant(Class<?> hooks, boolean call, boolean plain) {

		Running start() {
			BenchModels.Paced model = new BenchModels.Paced();
			ConfigurableApplicationContext context = BenchApplication.start(model, this.hooks,
					Map.of("mantle.hooks.timeouts.modify", "5s"));
			ChatClient chatClient = this.plain ? ChatClient.builder(model).build()
					: BenchApplication.chatClient(context);
			return new Running(context, chatClient, this.call);
		}

	}

	record Running(ConfigurableApplicationContext context, ChatClient chatClient, boolean call) {

		void close() {
			this.context.close();
		}

		Result run(int concurrency, int turns) throws InterruptedException {
			ConcurrentLinkedQueue<Long> firstTokens = new ConcurrentLinkedQueue<>();
			AtomicLong notTheModels = new AtomicLong();
			System.gc();
			Thread.sleep(200);
			long cpuStarted = processCpuNanos();
			long started = System.nanoTime();
			if (this.call) {
				runCalls(concurrency, turns, firstTokens, notTheModels);
			}
			else {
				Flux.range(0, turns).flatMap((i) -> Flux.defer(() -> {
					long turnStart = System.nanoTime();
					AtomicInteger seen = new AtomicInteger();
					StringBuilder reply = new StringBuilder();
					return this.chatClient.prompt().user("hello " + i).stream().content().doOnNext((chunk) -> {
						if (seen.getAndIncrement() == 0) {
							firstTokens.add(System.nanoTime() - turnStart);
						}
						reply.append(chunk);
					}).doOnComplete(() -> {
						if (!BenchModels.STREAMED_TEXT.contentEquals(reply)) {
							notTheModels.incrementAndGet();
						}
					});
				}), concurrency).blockLast();
			}
			double seconds = (System.nanoTime() - started) / 1e9;
			double cpuMicros = (processCpuNanos() - cpuStarted) / 1e3;
			return new Result(turns / seconds, percentile(firstTokens, 0.5), percentile(firstTokens, 0.99),
					cpuMicros / turns, notTheModels.get());
		}

		private static long processCpuNanos() {
			return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
				.getProcessCpuTime();
		}

		private void runCalls(int concurrency, int turns, ConcurrentLinkedQueue<Long> latencies,
				AtomicLong notTheModels) throws InterruptedException {
			ExecutorService callers = Callers.threadPerCaller(concurrency);
			AtomicInteger remaining = new AtomicInteger(turns);
			CountDownLatch done = new CountDownLatch(concurrency);
			for (int i = 0; i < concurrency; i++) {
				callers.execute(() -> {
					while (remaining.getAndDecrement() > 0) {
						long turnStart = System.nanoTime();
						String reply = this.chatClient.prompt().user("hello").call().content();
						if (!BenchModels.CALLED_TEXT.equals(reply)) {
							notTheModels.incrementAndGet();
						}
						latencies.add(System.nanoTime() - turnStart);
					}
					done.countDown();
				});
			}
			done.await(10, TimeUnit.MINUTES);
			callers.shutdownNow();
		}

		private static double percentile(ConcurrentLinkedQueue<Long> values, double quantile) {
			List<Long> sorted = new ArrayList<>(values);
			sorted.sort(null);
			if (sorted.isEmpty()) {
				return Double.NaN;
			}
			return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(quantile * sorted.size()))) / 1e6;
		}

	}

}
