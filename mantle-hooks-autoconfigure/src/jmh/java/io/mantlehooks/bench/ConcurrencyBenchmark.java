package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
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

import io.mantlehooks.Callers;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.system.JavaVersion;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Many concurrent turns against a stub model that streams ten chunks over 50 ms (a call
 * takes 50 ms): throughput and time to first token, each as a ratio to plain Spring AI
 * measured in the same run. Variants: plain Spring AI, the starter without hooks,
 * six or ten observers and no modify hook, the starter's full chain with a hook that
 * never runs, the last two also on a chain built around Spring AI's own tool advisor
 * ({@link BenchApplication#withSpringToolAdvisor}), one 20 ms blocking modify hook (streamed), and the same hook in
 * {@code .call()} turns (one virtual thread per caller on Java 21+), and a quick blocking
 * modify hook (a redaction) in {@code .call()} turns, where the waiting caller spins.
 * <p>
 * The streaming guardrail variants stream ten sentences over 500 ms
 * ({@link BenchModels.Sentences}) through one outgoing-text hook that returns at once,
 * sentence by sentence ({@code SENTENCES}) or on the whole reply ({@code WHOLE}), beside
 * plain Spring AI on the same stub; they also report when the first complete sentence
 * reached the client.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.ConcurrencyBenchmark -Dbench.args="1000 5000"}; the
 * other arguments choose variants by part of their name (their plain baseline always
 * runs), e.g. {@code -Dbench.args="100 1000 sentences"} for the streaming guardrails.
 * Rounds: 5, or {@code -Dbench.rounds=N} passed to the benchmark's JVM (in
 * {@code -Dbench.main}, before the class name). Besides the medians it prints each
 * variant's per-round ratios to its baseline, measured right after each other.
 */
public final class ConcurrencyBenchmark {

	private static final int TURNS_PER_SLOT = 8;

	/** Interleaved rounds per concurrency: {@code -Dbench.rounds}, 5 unless set. */
	private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);

	private static final String PLAIN = "plain";

	private static final String PLAIN_CALL = "plain, call";

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
			concurrencies = List.of(1000, 5000);
		}
		Map<String, Variant> variants = new LinkedHashMap<>();
		variants.put(PLAIN, new Variant(null, false, true, false, PLAIN));
		variants.put("starter, no hooks", new Variant(null, false, false, false, PLAIN));
		variants.put("observers only", new Variant(BenchHooks.Observers.class, false, false, false, PLAIN));
		variants.put("full chain, idle hook",
				new Variant(BenchHooks.IdleToolObserver.class, false, false, false, PLAIN));
		variants.put("observers x10", new Variant(BenchHooks.TenObservers.class, false, false, false, PLAIN));
		variants.put("observers x10, Spring AI's tool advisor",
				new Variant(BenchHooks.TenObservers.class, false, false, false, PLAIN, true));
		variants.put("idle hook, Spring AI's tool advisor",
				new Variant(BenchHooks.IdleToolObserver.class, false, false, false, PLAIN, true));
		variants.put("20 ms blocking modify hook, stream",
				new Variant(BenchHooks.SlowRequestHook.class, false, false, false, PLAIN));
		variants.put(PLAIN_CALL, new Variant(null, true, true, false, PLAIN_CALL));
		variants.put("20 ms blocking modify hook, call",
				new Variant(BenchHooks.SlowRequestHook.class, true, false, false, PLAIN_CALL));
		variants.put("quick blocking modify hook, call",
				new Variant(BenchHooks.BlockingRequestHook.class, true, false, false, PLAIN_CALL));
		variants.put(PLAIN_SENTENCES, new Variant(null, false, true, true, PLAIN_SENTENCES));
		variants.put(SENTENCES_HOOK,
				new Variant(BenchHooks.SentenceOutgoingHook.class, false, false, true, PLAIN_SENTENCES));
		variants.put(WHOLE_HOOK, new Variant(BenchHooks.WholeOutgoingHook.class, false, false, true, PLAIN_SENTENCES));
		select(variants, only);
		System.out.println("Java " + JavaVersion.getJavaVersion() + ", " + Runtime.getRuntime().availableProcessors()
				+ " cores; per measurement: concurrency x " + TURNS_PER_SLOT
				+ " turns, at most <concurrency> at once; median of " + ROUNDS + " interleaved rounds");
		System.out.printf("variants: %s%nload average at start: %.2f%n", variants.keySet(), loadAverage());
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
				print(concurrency, medians, variants);
				printPairedRatios(rounds, variants);
				printStreamingGuardrails(concurrency, medians);
				System.out.printf("load average after %d concurrent turns: %.2f%n", concurrency, loadAverage());
			}
		}
		finally {
			running.values().forEach(Running::close);
		}
		System.exit(0);
	}

	/**
	 * Keep the variants whose name contains one of the given words (all when there are
	 * none) and the plain baselines they are compared with.
	 */
	private static void select(Map<String, Variant> variants, List<String> only) {
		if (only.isEmpty()) {
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

	private static double loadAverage() {
		return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
	}

	private static void print(int concurrency, Map<String, Result> results, Map<String, Variant> variants) {
		System.out.printf("%n%d concurrent turns%n", concurrency);
		System.out.printf("%-38s %10s %9s %12s %12s %9s %14s %13s %9s %14s%n", "variant", "turns/s", "x plain",
				"TTFT p50 ms", "TTFT p99 ms", "x plain", "1st sent. p50", "CPU us/turn", "x plain", "not the model");
		for (Map.Entry<String, Result> entry : results.entrySet()) {
			Result base = results.get(variants.get(entry.getKey()).baseline());
			Result result = entry.getValue();
			System.out.printf("%-38s %10.0f %9.2f %12.1f %12.1f %9.2f %14s %13.0f %9.2f %14d%n", entry.getKey(),
					result.throughput(), result.throughput() / base.throughput(), result.ttftP50(), result.ttftP99(),
					result.ttftP99() / base.ttftP99(),
					Double.isNaN(result.firstSentenceP50()) ? "-" : "%.1f".formatted(result.firstSentenceP50()),
					result.cpuMicrosPerTurn(), result.cpuMicrosPerTurn() / base.cpuMicrosPerTurn(),
					result.notTheModels());
		}
		Result streamHook = results.get("20 ms blocking modify hook, stream");
		Result callHook = results.get("20 ms blocking modify hook, call");
		if (streamHook != null && callHook != null) {
			System.out.printf("20 ms hook: stream throughput / call throughput = %.2f%n",
					streamHook.throughput() / callHook.throughput());
		}
	}

	/**
	 * Each variant's throughput and CPU per turn against its baseline's in the same round,
	 * the two measured one right after the other: the median of those per-round ratios,
	 * with their range. On a shared machine a slow phase then hits both sides of a ratio,
	 * where the ratio of two medians can take the slow round of one side only.
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
	 * The streaming guardrail goals of issue 19 against plain Spring AI on the same stub
	 * in this run: a {@code SENTENCES} hook's first token (p50) no later than 5 ms after
	 * the first sentence's end (goal set at 100 concurrent turns), and at least 0.8x plain
	 * throughput (goal set at 1,000 concurrent turns).
	 */
	private static void printStreamingGuardrails(int concurrency, Map<String, Result> results) {
		Result plain = results.get(PLAIN_SENTENCES);
		if (plain == null) {
			return;
		}
		System.out.printf(
				"10-sentence stub: one word every %d ms; the first sentence leaves the model at %d ms, the reply ends"
						+ " at %d ms; plain Spring AI: first token p50 %.1f ms, first sentence at the client p50 %.1f ms"
						+ " (p99 %.1f ms), last token p50 %.1f ms%n",
				BenchModels.SENTENCE_CHUNK_INTERVAL.toMillis(), BenchModels.Sentences.firstSentenceEnd().toMillis(),
				BenchModels.Sentences.replyEnd().toMillis(), plain.ttftP50(), plain.firstSentenceP50(),
				plain.firstSentenceP99(), plain.lastTokenP50());
		Result sentences = results.get(SENTENCES_HOOK);
		if (sentences != null) {
			double budget = plain.firstSentenceP50() + 5;
			double ratio = sentences.throughput() / plain.throughput();
			System.out.printf(
					"SENTENCES hook at %d turns: TTFT p50 %.1f ms vs goal <= %.1f ms (plain's first sentence p50"
							+ " + 5 ms, goal set at 100 turns): %s; throughput %.2fx plain vs goal >= 0.80x (goal set"
							+ " at 1,000 turns): %s%n",
					concurrency, sentences.ttftP50(), budget, (sentences.ttftP50() <= budget) ? "met" : "NOT met",
					ratio, (ratio >= 0.8) ? "met" : "NOT met");
		}
		Result whole = results.get(WHOLE_HOOK);
		if (whole != null) {
			System.out.printf(
					"WHOLE hook at %d turns: TTFT p50 %.1f ms = %.2fx plain's last token p50; throughput %.2fx plain%n",
					concurrency, whole.ttftP50(), whole.ttftP50() / plain.lastTokenP50(),
					whole.throughput() / plain.throughput());
		}
	}

	/**
	 * One measurement; {@code notTheModels} counts replies that are not the model's text
	 * (an error reply of a failed hook, an empty reply), summed over rounds so that none
	 * hides in a median.
	 */
	record Result(double throughput, double ttftP50, double ttftP99, double firstSentenceP50,
			double firstSentenceP99, double lastTokenP50, double cpuMicrosPerTurn, long notTheModels) {

		static Result median(List<Result> results) {
			return new Result(median(results.stream().mapToDouble(Result::throughput).toArray()),
					median(results.stream().mapToDouble(Result::ttftP50).toArray()),
					median(results.stream().mapToDouble(Result::ttftP99).toArray()),
					median(results.stream().mapToDouble(Result::firstSentenceP50).toArray()),
					median(results.stream().mapToDouble(Result::firstSentenceP99).toArray()),
					median(results.stream().mapToDouble(Result::lastTokenP50).toArray()),
					median(results.stream().mapToDouble(Result::cpuMicrosPerTurn).toArray()),
					results.stream().mapToLong(Result::notTheModels).sum());
		}

		private static double median(double[] values) {
			Arrays.sort(values);
			return values[values.length / 2];
		}

	}

	/**
	 * A variant: its hook bean (or none), {@code .call()} or {@code .stream()}, plain
	 * Spring AI or the starter, the ten-sentence stub or the ten-chunk one, the name of
	 * the plain variant it is compared with, and whether the starter's chain is the
	 * hand-built one around Spring AI's tool advisor
	 * ({@link BenchApplication#withSpringToolAdvisor}).
	 */
	record Variant(@Nullable Class<?> hooks, boolean call, boolean plain, boolean sentences, String baseline,
			boolean springToolAdvisor) {

		Variant(@Nullable Class<?> hooks, boolean call, boolean plain, boolean sentences, String baseline) {
			this(hooks, call, plain, sentences, baseline, false);
		}

		Running start() {
			ChatModel model = this.sentences ? new BenchModels.Sentences() : new BenchModels.Paced();
			ConfigurableApplicationContext context = BenchApplication.start(model, this.hooks,
					Map.of("mantle.hooks.timeouts.modify", "5s"));
			ChatClient chatClient = this.plain ? ChatClient.builder(model).build()
					: this.springToolAdvisor ? BenchApplication.withSpringToolAdvisor(context, model)
							: BenchApplication.chatClient(context);
			return new Running(context, chatClient, this.call,
					this.sentences ? BenchModels.SENTENCES_TEXT : BenchModels.STREAMED_TEXT);
		}

	}

	/**
	 * A started variant; {@code streamedText} is what its model's stream adds up to.
	 */
	record Running(ConfigurableApplicationContext context, ChatClient chatClient, boolean call,
			String streamedText) {

		void close() {
			this.context.close();
		}

		Result run(int concurrency, int turns) throws InterruptedException {
			ConcurrentLinkedQueue<Long> firstTokens = new ConcurrentLinkedQueue<>();
			ConcurrentLinkedQueue<Long> firstSentences = new ConcurrentLinkedQueue<>();
			ConcurrentLinkedQueue<Long> lastTokens = new ConcurrentLinkedQueue<>();
			boolean sentences = this.streamedText.contains(SENTENCE_END);
			AtomicLong notTheModels = new AtomicLong();
			System.gc();
			Thread.sleep(200);
			long cpuStarted = ProcessCpu.nanos();
			long started = System.nanoTime();
			if (this.call) {
				runCalls(concurrency, turns, firstTokens, notTheModels);
			}
			else {
				Flux.range(0, turns).flatMap((i) -> Flux.defer(() -> {
					long turnStart = System.nanoTime();
					AtomicInteger seen = new AtomicInteger();
					AtomicBoolean sentenceSeen = new AtomicBoolean(!sentences);
					StringBuilder reply = new StringBuilder();
					return this.chatClient.prompt().user("hello " + i).stream().content().doOnNext((chunk) -> {
						if (seen.getAndIncrement() == 0) {
							firstTokens.add(System.nanoTime() - turnStart);
						}
						reply.append(chunk);
						// the first sentence is complete at the client once its ". " arrived
						if (!sentenceSeen.get() && reply.indexOf(SENTENCE_END) >= 0) {
							sentenceSeen.set(true);
							firstSentences.add(System.nanoTime() - turnStart);
						}
					}).doOnComplete(() -> {
						lastTokens.add(System.nanoTime() - turnStart);
						if (!this.streamedText.contentEquals(reply)) {
							notTheModels.incrementAndGet();
						}
					});
				}), concurrency).blockLast();
			}
			double seconds = (System.nanoTime() - started) / 1e9;
			double cpuMicros = (ProcessCpu.nanos() - cpuStarted) / 1e3;
			return new Result(turns / seconds, percentile(firstTokens, 0.5), percentile(firstTokens, 0.99),
					percentile(firstSentences, 0.5), percentile(firstSentences, 0.99), percentile(lastTokens, 0.5),
					cpuMicros / turns, notTheModels.get());
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
