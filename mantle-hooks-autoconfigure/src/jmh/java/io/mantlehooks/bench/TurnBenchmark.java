package io.mantlehooks.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.HookPoint;
import io.mantlehooks.runtime.HookRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.task.AsyncTaskExecutor;

/**
 * One whole {@code ChatClient} turn against a stub model that answers at once, so the
 * time is the chain's: plain Spring AI, the starter without hooks, six observers, one blocking or
 * asynchronous modify hook, hooks at every point, a hand-written {@code CallAdvisor}
 * doing the rewrite the hooks do, two advisors that only pass the turn on (what Spring
 * AI's chain charges per advisor), a bare hand-off to the hook executor (the price of one
 * hop), and a modify hook that hangs (500 ms timeout) behind its open circuit breaker;
 * hooks at every point with an observation registry, and with the turn console recording.
 * {@code call} is a {@code .call()} turn, {@code stream} a {@code .stream()}
 * turn of ten chunks; every reply is checked to be the model's.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure -am verify
 * -Djmh.args="TurnBenchmark -prof gc"}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TurnBenchmark {

	@Param({ "plain", "starterNoHooks", "observersOnly", "blockingHook", "asyncHook", "everyPoint",
			"handWrittenAdvisor", "twoPassThroughAdvisors", "executorHop", "hungHookOpenBreaker", "everyPointObserved",
			"everyPointConsole", "idleChain" })
	public String variant;

	private ConfigurableApplicationContext context;

	private ChatClient chatClient;

	private AsyncTaskExecutor executor;

	@Setup(Level.Trial)
	public void setUp() {
		BenchModels.Instant model = new BenchModels.Instant();
		Class<?> hooks = switch (this.variant) {
			case "blockingHook" -> BenchHooks.BlockingRequestHook.class;
			case "asyncHook" -> BenchHooks.AsyncRequestHook.class;
			case "everyPoint", "everyPointObserved", "everyPointConsole" -> BenchHooks.EveryPoint.class;
			case "observersOnly" -> BenchHooks.Observers.class;
			case "hungHookOpenBreaker" -> BenchHooks.HungRequestHook.class;
			// the starter's whole chain, and a tool-result hook the turn never reaches
			case "idleChain" -> BenchHooks.IdleToolObserver.class;
			default -> null;
		};
		Map<String, Object> properties = new HashMap<>();
		if ("everyPointConsole".equals(this.variant)) {
			// the console records every turn and, with texts, what each modify hook changed
			properties.put("mantle.hooks.console.enabled", "true");
			properties.put("mantle.hooks.console.include-text", "true");
		}
		boolean observed = "everyPointObserved".equals(this.variant) || "everyPointConsole".equals(this.variant);
		this.context = BenchApplication.start(model, hooks, properties, observed);
		this.executor = this.context.getBean("mantleHookExecutor", AsyncTaskExecutor.class);
		if ("hungHookOpenBreaker".equals(this.variant)) {
			// the hung hook's breaker opened after it timed out on 20 turns: from now on the
			// point's fail policy applies at once
			this.context.getBean(HookRegistry.class)
				.everyAgent()
				.modifier(HookPoint.MODEL_REQUEST)
				.circuitBreaker()
				.transitionToForcedOpenState();
		}
		this.chatClient = switch (this.variant) {
			case "plain", "executorHop" -> ChatClient.builder(model).build();
			case "handWrittenAdvisor" ->
				ChatClient.builder(model).defaultAdvisors(new HandWrittenRewriteAdvisor()).build();
			case "twoPassThroughAdvisors" -> ChatClient.builder(model).defaultAdvisors(PassThroughAdvisors.two()).build();
			default -> BenchApplication.chatClient(this.context);
		};
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.context.close();
	}

	@Benchmark
	public Object call() throws ExecutionException, InterruptedException {
		if ("executorHop".equals(this.variant)) {
			return CompletableFuture.supplyAsync(() -> "hop", this.executor).get();
		}
		return theModels(this.chatClient.prompt().user("my card is 4111").call().content(), BenchModels.CALLED_TEXT);
	}

	@Benchmark
	public Object stream() {
		if (this.variant.startsWith("executorHop")) {
			return null;
		}
		return theModels(this.chatClient.prompt().user("my card is 4111").stream().content().blockLast(), "word9 ");
	}

	/**
	 * Return the reply if it is the model's (its whole text, or a stream's last chunk,
	 * which ends the text when a hook buffers it): a hook that failed would end the turn
	 * early with the fail-closed reply, fast and wrong. The hung hook behind its open
	 * breaker is measured for exactly that reply.
	 */
	private String theModels(String reply, String modelsEnd) {
		if (!"hungHookOpenBreaker".equals(this.variant) && (reply == null || !reply.endsWith(modelsEnd))) {
			throw new IllegalStateException("Not the model's reply: " + reply);
		}
		return reply;
	}

}
