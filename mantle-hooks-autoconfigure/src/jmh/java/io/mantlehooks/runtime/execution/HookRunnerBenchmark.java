package io.mantlehooks.runtime.execution;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.TimeoutSource;
import io.mantlehooks.runtime.guard.HookGuards;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;


/**
 * What the runner costs the turn's thread: a point without hooks (the common case), a
 * blocking modify hook and an asynchronous one (each one hop to the hook executor), and
 * starting one observer. Run with {@code mvn -Pbenchmarks -pl mantle-hooks-autoconfigure
 * verify}; add {@code -Djmh.args="-prof gc"} for allocation per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HookRunnerBenchmark {

	private static final Channel CHANNEL = Channel.of("bench");

	private final OutgoingTextPayload outgoing = new OutgoingTextPayload("hello", false, "u1", Map.of(), CHANNEL);

	private final IncomingMessagePayload incoming = new IncomingMessagePayload("hello", "", "u1", Map.of(), CHANNEL);

	private final ToolResultPayload toolResult = new ToolResultPayload("lookup", Map.of("id", 1), "42", false, "u1",
			Map.of(), CHANNEL);

	private HookThreadPool executor;

	private HookRunner runner;

	@Setup(Level.Trial)
	public void setUp() throws Exception {
		this.executor = new HookThreadPool("bench-hook-", 200);
		this.executor.initialize();
		Hooks hooks = new Hooks();
		HookRegistry registry = new HookRegistry();
		registry.install(List.of(
				hook(hooks, "trim", HookPoint.OUTGOING_TEXT, HookLane.MODIFY, OutgoingTextPayload.class),
				hook(hooks, "redact", HookPoint.TOOL_RESULT, HookLane.MODIFY, ToolResultPayload.class),
				hook(hooks, "audit", HookPoint.TOOL_RESULT, HookLane.OBSERVE, ToolResultPayload.class)));
		this.runner = new HookRunner(registry, this.executor);
	}

	private static HookMethod hook(Hooks hooks, String name, HookPoint point, HookLane lane, Class<?> payloadType)
			throws NoSuchMethodException {
		Duration timeout = Duration.ofSeconds(5);
		return new HookMethod("hooks", point, lane, Hooks.class.getMethod(name, payloadType), () -> hooks, timeout,
				TimeoutSource.LANE, HookGuards.defaults().forHook("hooks." + name, point, lane, timeout),
				StreamMode.WHOLE, Set.of());
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.runner.destroy();
		this.executor.shutdown();
	}

	@Benchmark
	public boolean pointWithoutHooksCheck() {
		return this.runner.hasHooks(HookPoint.KNOWLEDGE_QUERY, HookScope.none());
	}

	@Benchmark
	public Object modifyPointWithoutHooks() {
		return this.runner.runAndWait(HookPoint.INCOMING_MESSAGE, this.incoming, HookScope.none());
	}

	@Benchmark
	public void observePointWithoutHooks() {
		this.runner.observe(HookPoint.OUTGOING_TEXT, this.outgoing, HookScope.none());
	}

	@Benchmark
	public Object modifyAsyncHook() {
		return this.runner.runAndWait(HookPoint.OUTGOING_TEXT, this.outgoing, HookScope.none());
	}

	@Benchmark
	public Object modifyBlockingHook() {
		return this.runner.runAndWait(HookPoint.TOOL_RESULT, this.toolResult, HookScope.none());
	}

	@Benchmark
	public void observeOneObserver() {
		this.runner.observe(HookPoint.TOOL_RESULT, this.toolResult, HookScope.none());
	}

	public static class Hooks {

		public CompletionStage<OutgoingTextPayload> trim(OutgoingTextPayload text) {
			return CompletableFuture.completedFuture(text);
		}

		public ToolResultPayload redact(ToolResultPayload result) {
			return result.withValue("redacted");
		}

		public void audit(ToolResultPayload result) {
		}

	}

}
