package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.HookWait;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Where a modify hook's time goes beyond its one hand-off: for {@code TurnBenchmark}'s
 * {@code .call()} turn (plain Spring AI, one blocking and one {@code CompletionStage}
 * {@code @ModifyModelRequest}), a bare hand-off to the hook executor and back, and the
 * same hand-off waited for as the engine waits for hooks (spinning briefly before it
 * parks, {@code mantle.hooks.executor.spin-wait}), prints per turn the wall time, the
 * calling thread's CPU time and the whole process's CPU time, each the median of the
 * measured rounds (the variants take turns in every round). A hooked turn's time minus
 * plain's, over the bare hand-off's, is how many hand-offs the hook adds (the last
 * column divides by the waited hand-off instead); the CPU columns say on which side the
 * rest is spent: the caller's (the turn's own work before and after the hand-off) or the
 * hook thread's. Every reply is checked to be the model's; the run stops at the first
 * that is not.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.HandOffCost -Dbench.args="20000 8"} (turns per round,
 * measured rounds; two more rounds warm up)
 */
public final class HandOffCost {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private static final String USER_TEXT = "my card is 4111";

	/** What each turn returns, kept so that nothing is optimised away. */
	static volatile Object last;

	private HandOffCost() {
	}

	public static void main(String[] args) throws Exception {
		int turns = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 8;
		ConfigurableApplicationContext blocking = BenchApplication.start(new BenchModels.Instant(),
				BenchHooks.BlockingRequestHook.class, Map.of());
		ConfigurableApplicationContext async = BenchApplication.start(new BenchModels.Instant(),
				BenchHooks.AsyncRequestHook.class, Map.of());
		ChatClient plainClient = ChatClient.builder(new BenchModels.Instant()).build();
		ChatClient blockingClient = BenchApplication.chatClient(blocking);
		ChatClient asyncClient = BenchApplication.chatClient(async);
		Executor executor = blocking.getBean(MantleHooksAutoConfiguration.HOOK_EXECUTOR_BEAN_NAME, Executor.class);
		HookWait wait = blocking.getBean(HookRunner.class).getWait();
		Variant[] variants = { new Variant("plain Spring AI", () -> call(plainClient)),
				new Variant("bare hand-off", () -> handOff(executor, HookWait.PARK)),
				new Variant("hand-off waited as hooks are", () -> handOff(executor, wait)),
				new Variant("blocking @ModifyModelRequest", () -> call(blockingClient)),
				new Variant("CompletionStage @ModifyModelRequest", () -> call(asyncClient)) };
		System.out.println("Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
		for (int round = 0; round < rounds + 2; round++) {
			for (Variant variant : variants) {
				variant.round(turns, round >= 2);
			}
		}
		double plainWall = variants[0].median(variants[0].wall);
		double handOffWall = variants[1].median(variants[1].wall);
		double waitedHandOffWall = variants[2].median(variants[2].wall);
		System.out.printf("%-36s | %9s | %11s | %12s | %17s | %22s%n", "variant (µs per turn)", "wall", "caller CPU",
				"process CPU", "hand-offs added", "same-wait hand-offs");
		for (int i = 0; i < variants.length; i++) {
			Variant variant = variants[i];
			double wall = variant.median(variant.wall);
			boolean hooked = i > 2;
			System.out.printf("%-36s | %9.2f | %11.2f | %12.2f | %17s | %22s%n", variant.name, wall,
					variant.median(variant.callerCpu), variant.median(variant.processCpu),
					hooked ? String.format("%.2f", (wall - plainWall) / handOffWall) : "",
					hooked ? String.format("%.2f", (wall - plainWall) / waitedHandOffWall) : "");
		}
		blocking.close();
		async.close();
	}

	/**
	 * One turn, whose reply must be the model's: a hook that failed would make the turn
	 * end early with the fail-closed reply, fast and wrong.
	 */
	private static Object call(ChatClient client) {
		String reply = client.prompt().user(USER_TEXT).call().content();
		if (!BenchModels.CALLED_TEXT.equals(reply)) {
			throw new IllegalStateException("Not the model's reply: " + reply);
		}
		return reply;
	}

	private static Object handOff(Executor executor, HookWait wait) {
		try {
			return wait.get(CompletableFuture.supplyAsync(() -> "hop", executor));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static final class Variant {

		final String name;

		private final Supplier<Object> turn;

		final double[] wall = new double[64];

		final double[] callerCpu = new double[64];

		final double[] processCpu = new double[64];

		private int measured;

		Variant(String name, Supplier<Object> turn) {
			this.name = name;
			this.turn = turn;
		}

		void round(int turns, boolean measure) {
			long start = System.nanoTime();
			long caller = THREADS.getCurrentThreadCpuTime();
			long process = ProcessCpu.nanos();
			for (int i = 0; i < turns; i++) {
				last = this.turn.get();
			}
			if (measure) {
				this.wall[this.measured] = (System.nanoTime() - start) / 1e3 / turns;
				this.callerCpu[this.measured] = (THREADS.getCurrentThreadCpuTime() - caller) / 1e3 / turns;
				this.processCpu[this.measured] = (ProcessCpu.nanos() - process) / 1e3 / turns;
				this.measured++;
			}
		}

		double median(double[] values) {
			return ProcessCpu.median(values, this.measured);
		}

	}

}
