package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.Burners;
import io.mantlehooks.Callers;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.system.JavaVersion;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Many concurrent turns in a closed loop against a stub model that answers in 50 ms
 * (streams: ten chunks over 50 ms), each variant beside plain Spring AI in the same run:
 * throughput, CPU per turn and peak threads as ratios to plain. Every reply is checked
 * against the reply its variant must give (a hook that failed would answer early with a
 * fallback, fast and wrong), the first burst after the application started included, and
 * so is every hook invocation's outcome and every circuit breaker's state. Hooks keep
 * their default timeouts.
 * <p>
 * Variants: plain Spring AI; the starter without hooks; four trivial modify hooks
 * (incoming message, model request, model response, outgoing text); one 20 ms blocking
 * model-request hook; ten observers; each in {@code .call()} and {@code .stream()}; and
 * the streaming guardrails (ten sentences over 500 ms through a {@code SENTENCES} or
 * {@code WHOLE} outgoing-text hook).
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure -am verify -DskipTests
 * -Dbench.main=io.mantlehooks.bench.ConcurrencyBenchmark -Dbench.args="200 1000 5000"};
 * other arguments choose variants by part of their name (their plain baseline always
 * runs), e.g. {@code "1000 trivial"}. JVM options in {@code -Dbench.main} before the class
 * name: {@code -Dbench.rounds=N} (5), {@code -Dbench.burners=N} threads burning CPU for
 * the whole run (0), {@code -Dbench.virtual=false} to keep hooks on platform threads on
 * Java 21+ (where {@code spring.threads.virtual.enabled} is on by default here).
 */
public final class ConcurrencyBenchmark {

	private static final int TURNS_PER_SLOT = 8;

	private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);

	private static final int BURNERS = Integer.getInteger("bench.burners", 0);

	private static final boolean VIRTUAL = JavaVersion.getJavaVersion().isEqualOrNewerThan(JavaVersion.TWENTY_ONE)
			&& Boolean.parseBoolean(System.getProperty("bench.virtual", "true"));

	private static final String PLAIN_CALL = "plain, call";

	private static final String PLAIN_STREAM = "plain, stream";

	private static final String PLAIN_SENTENCES = "plain, 10 sentences";

	private static final String SENTENCES_HOOK = "SENTENCES outgoing hook, 10 sentences";

	private static final String WHOLE_HOOK = "WHOLE outgoing hook, 10 sentences";

	private static final String SENTENCE_END = ". ";

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
			concurrencies = List.of(1000);
		}
		Map<String, Variant> variants = variants();
		select(variants, only);
		System.out.printf(
				"Java %s, %d cores, hooks on %s threads, %d CPU burner threads; per measurement: concurrency x %d"
						+ " turns, at most <concurrency> at once; median of %d interleaved rounds%n",
				JavaVersion.getJavaVersion(), Runtime.getRuntime().availableProcessors(),
				VIRTUAL ? "virtual" : "platform", BURNERS, TURNS_PER_SLOT, ROUNDS);
		System.out.printf("variants: %s%nload average at start: %.2f%n", variants.keySet(), loadAverage());
		Burners burners = new Burners(BURNERS);
		try {
			for (int concurrency : concurrencies) {
				measure(concurrency, variants, burners);
			}
		}
		finally {
			burners.stop();
		}
		System.exit(0);
	}

	private static Map<String, Variant> variants() {
		Map<String, Variant> variants = new LinkedHashMap<>();
		variants.put(PLAIN_CALL, new Variant(null, true, true, false, PLAIN_CALL, BenchModels.CALLED_TEXT));
		variants.put("no hooks, call", new Variant(null, true, false, false, PLAIN_CALL, BenchModels.CALLED_TEXT));
		variants.put("four trivial hooks, call", new Variant(BenchHooks.FourTrivialHooks.class, true, false, false,
				PLAIN_CALL, BenchHooks.FourTrivialHooks.hooked(BenchModels.CALLED_TEXT)));
		variants.put("20 ms hook, call",
				new Variant(BenchHooks.SlowRequestHook.class, true, false, false, PLAIN_CALL, BenchModels.CALLED_TEXT));
		variants.put(PLAIN_STREAM, new Variant(null, false, true, false, PLAIN_STREAM, BenchModels.STREAMED_TEXT));
		variants.put("no hooks, stream",
				new Variant(null, false, false, false, PLAIN_STREAM, BenchModels.STREAMED_TEXT));
		variants.put("four trivial hooks, stream", new Variant(BenchHooks.FourTrivialHooks.class, false, false, false,
				PLAIN_STREAM, BenchHooks.FourTrivialHooks.hooked(BenchModels.STREAMED_TEXT)));
		variants.put("20 ms hook, stream", new Variant(BenchHooks.SlowRequestHook.class, false, false, false,
				PLAIN_STREAM, BenchModels.STREAMED_TEXT));
		variants.put("ten observers, stream", new Variant(BenchHooks.TenObservers.class, false, false, false,
				PLAIN_STREAM, BenchModels.STREAMED_TEXT));
		variants.put(PLAIN_SENTENCES,
				new Variant(null, false, true, true, PLAIN_SENTENCES, BenchModels.SENTENCES_TEXT));
		variants.put(SENTENCES_HOOK, new Variant(BenchHooks.SentenceOutgoingHook.class, false, false, true,
				PLAIN_SENTENCES, BenchModels.SENTENCES_TEXT));
		variants.put(WHOLE_HOOK, new Variant(BenchHooks.WholeOutgoingHook.class, false, false, true, PLAIN_SENTENCES,
				BenchModels.SENTENCES_TEXT));
		return variants;
	}

	/**
	 * Keep the variants whose name contains one of the given words (all when there are
	 * none) and the plain baselines they are compared with.
	 */
	private static void select(Map<String, Variant> variants, List<String> only) {
		if (only.isEmpty()) {
			// the sentence variants answer in 500 ms: asked for by name only
			variants.keySet().removeIf((name) -> name.contains("sentences"));
			return;
		}
		Set<String> chosen = new HashSet<>();
		variants.forEach((name, variant) -> {
			if (only.stream().anyMatch(name::contains)) {
				chosen.add(name);
				chosen.add(variant.baseline());
			}
		});
		variants.keySet().retainAll(chosen);
	}

	/**
	 * Start every variant fresh, send it one burst at the concurrency (its first seconds,
	 * checked like the rest), then the interleaved rounds.
	 */
	private static void measure(int concurrency, Map<String, Variant> variants, Burners burners)
			throws InterruptedException {
		Map<String, Running> running = new LinkedHashMap<>();
		variants.forEach((name, variant) -> running.put(name, variant.start()));
		try {
			Map<String, Long> coldWrong = new LinkedHashMap<>();
			for (Map.Entry<String, Running> entry : running.entrySet()) {
				coldWrong.put(entry.getKey(), entry.getValue().run(concurrency, concurrency, burners).wrongReplies());
			}
			Map<String, List<Result>> rounds = new LinkedHashMap<>();
			for (int round = 0; round < ROUNDS; round++) {
				for (Map.Entry<String, Running> entry : running.entrySet()) {
					rounds.computeIfAbsent(entry.getKey(), (key) -> new ArrayList<>())
						.add(entry.getValue().run(concurrency, concurrency * TURNS_PER_SLOT, burners));
				}
			}
			Map<String, Result> medians = new LinkedHashMap<>();
			rounds.forEach((name, results) -> medians.put(name, Result.median(results)));
			print(concurrency, medians, variants, coldWrong, running);
			printPairedRatios(rounds, variants);
			printStreamingGuardrails(concurrency, medians);
			System.out.printf("load average after %d concurrent turns: %.2f%n", concurrency, loadAverage());
		}
		finally {
			running.values().forEach(Running::close);
		}
	}

	private static double loadAverage() {
		return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
	}

	private static void print(int concurrency, Map<String, Result> results, Map<String, Variant> variants,
			Map<String, Long> coldWrong, Map<String, Running> running) {
		System.out.printf("%n%d concurrent turns%n", concurrency);
		System.out.printf("%-28s %9s %8s %11s %11s %9s %8s %12s %8s %7s %7s %7s %7s%n", "variant", "turns/s", "x plain",
				"p50 ms", "p99 ms", "CPU us", "x plain", "peak threads", "x plain", "wrong", "cold", "!proc.",
				"!closed");
		for (Map.Entry<String, Result> entry : results.entrySet()) {
			Result base = results.get(variants.get(entry.getKey()).baseline());
			Result result = entry.getValue();
			Running variant = running.get(entry.getKey());
			System.out.printf("%-28s %9.0f %8.2f %11.1f %11.1f %9.0f %8.2f %12d %8.2f %7d %7d %7d %7d %s%n",
					entry.getKey(), result.throughput(), result.throughput() / base.throughput(), result.latencyP50(),
					result.latencyP99(), result.cpuMicrosPerTurn(), result.cpuMicrosPerTurn() / base.cpuMicrosPerTurn(),
					result.peakThreads(), (double) result.peakThreads() / base.peakThreads(), result.wrongReplies(),
					coldWrong.get(entry.getKey()), variant.notProceeded(), variant.notClosed(),
					variant.notProceededByOutcome());
		}
		System.out.println("wrong: replies that were not the variant's reply, all rounds; cold: the same in the first"
				+ " burst after start; !proc.: hook invocations whose outcome was not proceeded; !closed: circuit"
				+ " breakers not closed at the end");
	}

	/**
	 * Each variant's throughput and CPU per turn against its baseline's in the same round,
	 * the two measured one right after the other: the median of those per-round ratios,
	 * with their range.
	 */
	private static void printPairedRatios(Map<String, List<Result>> rounds, Map<String, Variant> variants) {
		System.out.printf("%-38s %28s %28s%n", "per-round ratios (median, range)", "throughput x plain",
				"CPU/turn x plain");
		rounds.forEach((name, results) -> {
			List<Result> base = rounds.get(variants.get(name).baseline());
			if (base == results) {
				return;
			}
			double[] throughput = new double[results.size()];
			double[] cpu = new double[results.size()];
			for (int i = 0; i < results.size(); i++) {
				throughput[i] = results.get(i).throughput() / base.get(i).throughput();
				cpu[i] = results.get(i).cpuMicrosPerTurn() / base.get(i).cpuMicrosPerTurn();
			}
			System.out.printf("%-38s %28s %28s%n", name, ratios(throughput), ratios(cpu));
		});
	}

	private static String ratios(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return "%.2f (%.2f-%.2f)".formatted(sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
	}

	/**
	 * The streaming guardrails against plain Spring AI on the same stub: when the first
	 * complete sentence reached the client, and throughput.
	 */
	private static void printStreamingGuardrails(int concurrency, Map<String, Result> results) {
		Result plain = results.get(PLAIN_SENTENCES);
		if (plain == null) {
			return;
		}
		System.out.printf(
				"10-sentence stub: one word every %d ms; first sentence at the client p50: plain %.1f ms (p99 %.1f),"
						+ " last token p50 %.1f ms%n",
				BenchModels.SENTENCE_CHUNK_INTERVAL.toMillis(), plain.firstSentenceP50(), plain.firstSentenceP99(),
				plain.latencyP50());
		for (String name : List.of(SENTENCES_HOOK, WHOLE_HOOK)) {
			Result hooked = results.get(name);
			if (hooked != null) {
				System.out.printf("%s at %d turns: first sentence p50 %.1f ms, throughput %.2fx plain%n", name,
						concurrency, hooked.firstSentenceP50(), hooked.throughput() / plain.throughput());
			}
		}
	}

	/**
	 * One measurement; {@code wrongReplies} counts replies that are not the variant's,
	 * summed over rounds so that none hides in a median.
	 */
	record Result(double throughput, double latencyP50, double latencyP99, double firstSentenceP50,
			double firstSentenceP99, double cpuMicrosPerTurn, int peakThreads, long wrongReplies) {

		static Result median(List<Result> results) {
			return new Result(median(results.stream().mapToDouble(Result::throughput).toArray()),
					median(results.stream().mapToDouble(Result::latencyP50).toArray()),
					median(results.stream().mapToDouble(Result::latencyP99).toArray()),
					median(results.stream().mapToDouble(Result::firstSentenceP50).toArray()),
					median(results.stream().mapToDouble(Result::firstSentenceP99).toArray()),
					median(results.stream().mapToDouble(Result::cpuMicrosPerTurn).toArray()),
					results.stream().mapToInt(Result::peakThreads).max().orElse(0),
					results.stream().mapToLong(Result::wrongReplies).sum());
		}

		private static double median(double[] values) {
			Arrays.sort(values);
			return values[values.length / 2];
		}

	}

	/**
	 * A variant: its hook bean (or none), {@code .call()} or {@code .stream()}, plain
	 * Spring AI or the starter, the ten-sentence stub or the ten-chunk one, the name of
	 * the plain variant it is compared with, and the reply it must give.
	 */
	record Variant(@Nullable Class<?> hooks, boolean call, boolean plain, boolean sentences, String baseline,
			String reply) {

		Running start() {
			ChatModel model = this.sentences ? new BenchModels.Sentences() : new BenchModels.Paced();
			ConfigurableApplicationContext context = BenchApplication.start(model, this.hooks,
					Map.of("spring.threads.virtual.enabled", String.valueOf(VIRTUAL)));
			ChatClient chatClient = this.plain ? ChatClient.builder(model).build()
					: BenchApplication.chatClient(context);
			return new Running(context, chatClient, this.call, this.reply);
		}

	}

	/**
	 * A started variant.
	 */
	record Running(ConfigurableApplicationContext context, ChatClient chatClient, boolean call, String reply) {

		void close() {
			this.context.close();
		}

		/** Hook invocations of the variant whose outcome was not {@code proceeded}. */
		long notProceeded() {
			long count = 0;
			for (HookMethod hook : this.context.getBean(HookRegistry.class).hooks()) {
				for (Map.Entry<HookOutcome, Long> outcome : hook.outcomeCounts().entrySet()) {
					if (outcome.getKey() != HookOutcome.PROCEEDED) {
						count += outcome.getValue();
					}
				}
			}
			return count;
		}

		/** The outcomes other than {@code proceeded}, by hook and outcome. */
		String notProceededByOutcome() {
			Map<String, Long> counts = new LinkedHashMap<>();
			for (HookMethod hook : this.context.getBean(HookRegistry.class).hooks()) {
				hook.outcomeCounts().forEach((outcome, count) -> {
					if (outcome != HookOutcome.PROCEEDED && count > 0) {
						counts.put(hook.name() + ":" + outcome.tagValue(), count);
					}
				});
			}
			return counts.isEmpty() ? "" : counts.toString();
		}

		/** Circuit breakers of the variant's hooks that are not closed. */
		long notClosed() {
			return this.context.getBean(HookRegistry.class)
				.hooks()
				.stream()
				.map(HookMethod::circuitBreaker)
				.filter((breaker) -> breaker != null && breaker.getState() != CircuitBreaker.State.CLOSED)
				.count();
		}

		/**
		 * Run the turns; the CPU per turn leaves out what the burners burned.
		 */
		Result run(int concurrency, int turns, Burners burners) throws InterruptedException {
			ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
			ConcurrentLinkedQueue<Long> firstSentences = new ConcurrentLinkedQueue<>();
			AtomicLong wrong = new AtomicLong();
			System.gc();
			Thread.sleep(200);
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			threads.resetPeakThreadCount();
			long cpuStarted = ProcessCpu.nanos() - burners.cpuNanos();
			long started = System.nanoTime();
			if (this.call) {
				runCalls(concurrency, turns, latencies, wrong);
			}
			else {
				runStreams(concurrency, turns, latencies, firstSentences, wrong);
			}
			double seconds = (System.nanoTime() - started) / 1e9;
			double cpuMicros = (ProcessCpu.nanos() - burners.cpuNanos() - cpuStarted) / 1e3;
			return new Result(turns / seconds, percentile(latencies, 0.5), percentile(latencies, 0.99),
					percentile(firstSentences, 0.5), percentile(firstSentences, 0.99), cpuMicros / turns,
					threads.getPeakThreadCount(), wrong.get());
		}

		private void runStreams(int concurrency, int turns, ConcurrentLinkedQueue<Long> latencies,
				ConcurrentLinkedQueue<Long> firstSentences, AtomicLong wrong) {
			boolean sentences = this.reply.contains(SENTENCE_END);
			Flux.range(0, turns).flatMap((i) -> Flux.defer(() -> {
				long turnStart = System.nanoTime();
				AtomicBoolean sentenceSeen = new AtomicBoolean(!sentences);
				StringBuilder reply = new StringBuilder();
				return this.chatClient.prompt().user("hello " + i).stream().content().doOnNext((chunk) -> {
					reply.append(chunk);
					// the first sentence is complete at the client once its ". " arrived
					if (!sentenceSeen.get() && reply.indexOf(SENTENCE_END) >= 0) {
						sentenceSeen.set(true);
						firstSentences.add(System.nanoTime() - turnStart);
					}
				}).doOnComplete(() -> {
					latencies.add(System.nanoTime() - turnStart);
					if (!this.reply.contentEquals(reply)) {
						wrong.incrementAndGet();
					}
				}).onErrorResume((ex) -> {
					wrong.incrementAndGet();
					return Flux.empty();
				});
			}), concurrency).blockLast();
		}

		private void runCalls(int concurrency, int turns, ConcurrentLinkedQueue<Long> latencies, AtomicLong wrong)
				throws InterruptedException {
			ExecutorService callers = Callers.threadPerCaller(concurrency);
			AtomicInteger remaining = new AtomicInteger(turns);
			CountDownLatch done = new CountDownLatch(concurrency);
			for (int i = 0; i < concurrency; i++) {
				callers.execute(() -> {
					while (remaining.getAndDecrement() > 0) {
						long turnStart = System.nanoTime();
						String reply;
						try {
							reply = this.chatClient.prompt().user("hello").call().content();
						}
						catch (RuntimeException ex) {
							reply = null;
						}
						if (!this.reply.equals(reply)) {
							wrong.incrementAndGet();
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
