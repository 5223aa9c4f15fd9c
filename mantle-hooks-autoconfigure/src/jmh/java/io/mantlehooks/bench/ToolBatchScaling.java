package io.mantlehooks.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * How the cost of one model response with many tool calls grows with the batch: plain
 * Spring AI (its own tool advisor) against the starter with a tool-call modify hook, a
 * tool-call observer and a tool-result modify hook. Prints, per batch size, the median of
 * seven (or fifteen) turns of each, taken in pairs ({@link PairedTurns}), the time per
 * tool call and the process's mean CPU time per tool call (all threads), their ratios,
 * and the 90th percentile of the pairs' ratios;
 * constant time per call means linear growth.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.ToolBatchScaling -Dbench.args="100 1000 10000"}
 */
public final class ToolBatchScaling {

	private static final Map<String, Object> NO_LIMITS = Map.of("spring.ai.tools.limits.max-calls-per-tool-default",
			"1000000", "spring.ai.tools.limits.max-total-tool-calls", "1000000", "mantle.hooks.timeouts.modify", "5s",
			"logging.level.io.mantlehooks", "error");

	private ToolBatchScaling() {
	}

	public static void main(String[] args) {
		int[] sizes = (args.length > 0) ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray()
				: new int[] { 100, 1_000, 10_000 };
		BatchModel model = new BatchModel();
		ConfigurableApplicationContext plain = BenchApplication.start(model, null, NO_LIMITS);
		ConfigurableApplicationContext hooked = BenchApplication.start(model, ToolHooks.class, NO_LIMITS);
		// plain Spring AI runs tools in its own advisor; the starter brings its tool loop
		ChatClient plainClient = plain.getBean(ChatClient.Builder.class)
			.defaultAdvisors(
					ToolCallAdvisor.builder().toolCallingManager(plain.getBean(ToolCallingManager.class)).build())
			.build();
		ChatClient hookedClient = BenchApplication.chatClient(hooked);
		System.out.printf("%8s | %12s %10s %10s | %12s %10s %10s | %6s %6s %7s%n", "calls", "plain ms", "µs/call",
				"cpu µs", "hooked ms", "µs/call", "cpu µs", "x", "x cpu", "x p90");
		for (int size : sizes) {
			model.size = size;
			PairedTurns turns = PairedTurns.measure(plainClient, hookedClient, size);
			System.out.printf("%8d | %12.1f %10.1f %10.1f | %12.1f %10.1f %10.1f | %6.2f %6.2f %7.2f%n", size,
					turns.plain().wall(), turns.plain().wall() * 1000 / size, turns.plain().cpu() * 1000 / size,
					turns.hooked().wall(), turns.hooked().wall() * 1000 / size, turns.hooked().cpu() * 1000 / size,
					turns.hooked().wall() / turns.plain().wall(), turns.hooked().cpu() / turns.plain().cpu(),
					turns.ratioP90());
		}
		checkEveryHookProceeded(hooked);
		plain.close();
		hooked.close();
	}

	/**
	 * A hook that failed open (a timeout, a crash) leaves the reply as it was and is
	 * fast: every tool-call and tool-result invocation of the run must have proceeded.
	 */
	private static void checkEveryHookProceeded(ConfigurableApplicationContext hooked) {
		for (HookPoint point : List.of(HookPoint.TOOL_CALL, HookPoint.TOOL_RESULT)) {
			HookMethod hook = hooked.getBean(HookRegistry.class).everyAgent().modifier(point);
			Map<HookOutcome, Long> counts = (hook != null) ? hook.outcomeCounts() : Map.of();
			long proceeded = counts.getOrDefault(HookOutcome.PROCEEDED, 0L);
			long all = counts.values().stream().mapToLong(Long::longValue).sum();
			if (proceeded == 0 || proceeded != all) {
				throw new IllegalStateException("Not every " + point.configName() + " hook proceeded: " + counts);
			}
		}
		System.out.println("every tool-call and tool-result hook invocation proceeded");
	}

	/**
	 * Plain and hooked turns of one size, taken in pairs: each round runs one of each,
	 * in alternating order, so that a slow phase of the machine or of the JIT (Spring
	 * AI's own tool path, which both run, recompiles now and then and runs several times
	 * slower for a few hundred milliseconds) lands on both sides instead of on whichever
	 * ran its block of turns then.
	 * @param plain the median wall time and mean process CPU time of a plain turn, in milliseconds
	 * @param hooked the same for a hooked turn
	 * @param ratioP90 the 90th percentile of the rounds' hooked-to-plain wall time ratios
	 */
	record PairedTurns(Median plain, Median hooked, double ratioP90) {

		static PairedTurns measure(ChatClient plainClient, ChatClient hookedClient, int size) {
			int rounds = (size >= 10_000) ? 7 : 15;
			for (int i = 0; i < 2; i++) {
				turn(plainClient, size);
				turn(hookedClient, size);
			}
			double[][] plain = new double[2][rounds];
			double[][] hooked = new double[2][rounds];
			double[] ratios = new double[rounds];
			for (int i = 0; i < rounds; i++) {
				if (i % 2 == 0) {
					timed(plainClient, size, plain, i);
					timed(hookedClient, size, hooked, i);
				}
				else {
					timed(hookedClient, size, hooked, i);
					timed(plainClient, size, plain, i);
				}
				ratios[i] = hooked[0][i] / plain[0][i];
			}
			Arrays.sort(ratios);
			return new PairedTurns(Median.of(plain), Median.of(hooked), ratios[(int) Math.ceil(rounds * 0.9) - 1]);
		}

		/**
		 * One turn's wall time and the CPU time the whole process spent meanwhile (all
		 * threads: the caller's and the hook executor's), in milliseconds.
		 */
		private static void timed(ChatClient client, int size, double[][] into, int round) {
			long cpu = ProcessCpu.nanos();
			long start = System.nanoTime();
			turn(client, size);
			into[0][round] = (System.nanoTime() - start) / 1e6;
			into[1][round] = (ProcessCpu.nanos() - cpu) / 1e6;
		}

	}

	/**
	 * The median wall time of a turn and its mean CPU time, in milliseconds. The process's
	 * CPU time moves in steps of 10 ms on Linux, longer than a 1,000-call turn, so only
	 * the mean over the rounds says anything at that size.
	 */
	record Median(double wall, double cpu) {

		static Median of(double[][] times) {
			double[] wall = times[0].clone();
			Arrays.sort(wall);
			return new Median(wall[wall.length / 2], Arrays.stream(times[1]).average().orElse(0));
		}

	}

	private static void turn(ChatClient client, int size) {
		LookupTools tools = new LookupTools();
		String reply = client.prompt().user("Look them all up").tools(tools).call().content();
		if (!"All found.".equals(reply) || tools.calls.get() != size) {
			throw new IllegalStateException("Unexpected turn: " + reply + " after " + tools.calls + " calls");
		}
	}

	/**
	 * Answers the first request with {@code size} tool calls and the second with text.
	 */
	static final class BatchModel implements ChatModel {

		volatile int size;

		@Override
		public ChatResponse call(Prompt prompt) {
			List<Message> messages = prompt.getInstructions();
			if (messages.get(messages.size() - 1) instanceof ToolResponseMessage) {
				return new ChatResponse(List.of(new Generation(new AssistantMessage("All found."))));
			}
			List<AssistantMessage.ToolCall> calls = new ArrayList<>(this.size);
			for (int i = 0; i < this.size; i++) {
				calls.add(new AssistantMessage.ToolCall("call_" + i, "function", "lookup", "{\"id\":\"" + i + "\"}"));
			}
			return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(calls).build())));
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.just(call(prompt));
		}

		@Override
		public ChatOptions getOptions() {
			// tool-calling options, as every provider's: Spring AI's tool advisor needs them
			return ToolCallingChatOptions.builder().build();
		}

		@Override
		public ChatOptions getDefaultOptions() {
			return getOptions();
		}

	}

	public static class LookupTools {

		final AtomicInteger calls = new AtomicInteger();

		@Tool(name = "lookup", description = "Look up an order")
		public String lookup(String id) {
			this.calls.incrementAndGet();
			return "N" + id + " found";
		}

	}

	public static class ToolHooks {

		@ModifyToolCall
		public ToolCallPayload call(ToolCallPayload call) {
			return call;
		}

		@OnToolCall
		public void seen(ToolCallPayload call) {
		}

		@ModifyToolResult
		public ToolResultPayload result(ToolResultPayload result) {
			return result;
		}

	}

}
