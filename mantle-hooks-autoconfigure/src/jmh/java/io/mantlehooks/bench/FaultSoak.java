package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPayload;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.runtime.execution.HookRunner;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A long run of concurrent turns, call and stream, of which a fifth meet a faulty hook (a
 * crash, an {@code Error}, a hang, a spin, garbage, a stage that never completes) at a
 * random point. Every ten seconds it prints turns started and finished, turns whose pair
 * does not match, replies that carried a secret, live threads and heap in use.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.FaultSoak -Dbench.args="100000 32"}
 */
public final class FaultSoak {

	static final String SECRET = "SECRET-SOAK";

	private static final String[] FAULTS = { "crash", "error", "hang", "spin", "null", "never" };

	private static final String[] POINTS = { "incoming", "request", "response", "outgoing", "observer" };

	private static final Set<String> started = ConcurrentHashMap.newKeySet();

	private static final Map<String, Integer> finished = new ConcurrentHashMap<>();

	private FaultSoak() {
	}

	public static void main(String[] args) throws Exception {
		int turns = (args.length > 0) ? Integer.parseInt(args[0]) : 100_000;
		int concurrency = (args.length > 1) ? Integer.parseInt(args[1]) : 32;
		ConfigurableApplicationContext context = BenchApplication.start(new BenchModels.Instant(), SoakHooks.class,
				Map.of("mantle.hooks.timeouts.modify", "100ms", "mantle.hooks.timeouts.observe", "100ms",
						"logging.level.io.mantlehooks", "off"));
		ChatClient chatClient = BenchApplication.chatClient(context);
		HookRunner runner = context.getBean(HookRunner.class);
		Semaphore slots = new Semaphore(concurrency);
		AtomicLong done = new AtomicLong();
		AtomicLong leaked = new AtomicLong();
		AtomicLong errors = new AtomicLong();
		Random random = new Random(7);
		long start = System.nanoTime();
		long nextReport = start;
		for (int i = 0; i < turns; i++) {
			slots.acquire();
			String sender = (random.nextInt(5) == 0)
					? "fault:" + FAULTS[random.nextInt(FAULTS.length)] + ":" + POINTS[random.nextInt(POINTS.length)]
					: "user-" + i;
			boolean stream = random.nextBoolean();
			CompletableFuture.supplyAsync(() -> {
				ChatClient.ChatClientRequestSpec spec = chatClient.prompt()
					.user("question " + sender)
					.advisors(MantleHooks.identity(sender, Channel.of("soak")));
				return stream ? String.join("", spec.stream().content().collectList().block()) : spec.call().content();
			}).whenComplete((reply, ex) -> {
				if (ex != null) {
					errors.incrementAndGet();
				}
				else if (reply != null && reply.contains(SECRET)) {
					leaked.incrementAndGet();
				}
				done.incrementAndGet();
				slots.release();
			});
			if (System.nanoTime() >= nextReport) {
				report(start, done.get(), leaked.get(), errors.get(), runner);
				nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			}
		}
		slots.acquire(concurrency);
		Thread.sleep(1000);
		report(start, done.get(), leaked.get(), errors.get(), runner);
		context.close();
		System.exit(0);
	}

	private static void report(long start, long done, long leaked, long errors, HookRunner runner) {
		long unmatched = started.stream().filter((turn) -> finished.getOrDefault(turn, 0) != 1).count()
				+ finished.keySet().stream().filter((turn) -> !started.contains(turn)).count();
		Runtime runtime = Runtime.getRuntime();
		System.out.printf(
				"%5ds turns done %7d | started %7d finished %7d unmatched %3d dropped observers %3d | "
						+ "secrets leaked %d | errors %d | threads %4d | heap %4d MB%n",
				(System.nanoTime() - start) / 1_000_000_000L, done, started.size(), finished.size(), unmatched,
				runner.getDroppedObserverInvocations(), leaked, errors, ManagementFactory.getThreadMXBean().getThreadCount(),
				(runtime.totalMemory() - runtime.freeMemory()) / (1024 * 1024));
	}

	/**
	 * Hooks that misbehave when the sender id asks them to ({@code fault:<kind>:<point>}).
	 */
	public static class SoakHooks {

		@ModifyIncomingMessage
		public CompletionStage<IncomingMessagePayload> incoming(IncomingMessagePayload payload) {
			return act("incoming", payload);
		}

		@ModifyModelRequest
		public CompletionStage<ModelRequestPayload> request(ModelRequestPayload payload) {
			return act("request", payload);
		}

		@ModifyModelResponse
		public CompletionStage<ModelResponsePayload> response(ModelResponsePayload payload) {
			return act("response", payload);
		}

		@ModifyOutgoingText
		public CompletionStage<OutgoingTextPayload> outgoing(OutgoingTextPayload payload) {
			return act("outgoing", payload);
		}

		@OnModelRequest
		public CompletionStage<Void> observer(ModelRequestPayload payload) {
			return act("observer", payload).thenApply((ignored) -> null);
		}

		@OnTurnStarted
		public void turnStarted(TurnStartedPayload payload) {
			started.add(payload.turnId());
		}

		@OnTurnFinished
		public void turnFinished(TurnFinishedPayload payload) {
			finished.merge(payload.turnId(), 1, Integer::sum);
		}

		@SuppressWarnings("unchecked")
		private static <P extends HookPayload> CompletionStage<P> act(String point, P payload) {
			String sender = ((HookPayload) payload).senderId();
			if (!sender.startsWith("fault:") || !sender.endsWith(":" + point)) {
				return CompletableFuture.completedFuture(payload);
			}
			switch (sender.split(":")[1]) {
				case "crash" -> throw new IllegalStateException(SECRET);
				case "error" -> throw new StackOverflowError(SECRET);
				case "hang" -> Stalls.sleep(10_000);
				case "spin" -> Stalls.spin(300);
				case "null" -> {
					return null;
				}
				default -> {
					return new CompletableFuture<>();
				}
			}
			return CompletableFuture.completedFuture(payload);
		}


	}

}
