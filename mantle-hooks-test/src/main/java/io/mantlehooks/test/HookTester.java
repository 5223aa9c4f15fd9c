package io.mantlehooks.test;

import java.beans.Introspector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.AgentNames;
import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.discovery.HookMethodProcessor;
import io.mantlehooks.runtime.discovery.HookTimeouts;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.runtime.guard.HookGuards;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.util.Assert;

/**
 * Runs the hook methods of beans at their points with the real runner semantics
 * (timeouts, the identity wall, allowed signals, fail policies, bulkheads and circuit
 * breakers) and no Spring context:
 *
 * <pre class="code">
 * try (HookTester hooks = HookTester.of(new SupportHooks())) {
 *     HookResult&lt;ModelRequestPayload&gt; result = hooks.run(TestPayloads.modelRequest().user("card 4111 1111 1111 1111").build());
 *     assertThat(result.payload().messages().get(0).getText()).contains("[card]");
 * }
 * </pre>
 *
 * The hooks are discovered and validated as at application startup: an invalid hook
 * method makes {@link #of} throw the same {@link HookDefinitionException}. Timeouts are
 * the lane defaults ({@code 100ms} observe, {@code 500ms} modify) unless changed with
 * {@link #builder()}; a hook's {@code timeoutMs} wins as in an application. Close the
 * tester to stop its hook threads.
 */
public final class HookTester implements AutoCloseable {

	private static final AtomicInteger THREADS = new AtomicInteger();

	private final HookRegistry registry;

	private final HookRunner runner;

	private final ExecutorService executor;

	private final Duration observeTimeout;

	private final String agent;

	private HookTester(Builder builder) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		builder.beans.forEach(beanFactory::registerSingleton);
		this.registry = new HookRegistry();
		HookMethodProcessor processor = new HookMethodProcessor(this.registry,
				new HookTimeouts(builder.observe, builder.modify, builder.perPoint, builder.perHook),
				"mantle.hooks.timeouts", HookGuards.defaults());
		processor.setBeanFactory(beanFactory);
		processor.afterSingletonsInstantiated();
		this.executor = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "hook-tester-" + THREADS.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.runner = new HookRunner(this.registry, this.executor);
		this.observeTimeout = builder.observe;
		this.agent = MantleHooks.DEFAULT_AGENT;
	}

	private HookTester(HookTester tester, String agent) {
		this.registry = tester.registry;
		this.runner = tester.runner;
		this.executor = tester.executor;
		this.observeTimeout = tester.observeTimeout;
		this.agent = agent;
	}

	/**
	 * Return a tester that runs the hooks of an agent, as a turn of a {@code ChatClient}
	 * that names it with {@code MantleHooks.agent(agent)} would: the hooks
	 * {@code @ForAgent} scopes to it and those without {@code @ForAgent}. This tester (a
	 * client that names no agent) runs only the latter. Both share their hook threads:
	 * closing either closes both. <pre class="code">
	 * HookResult&lt;ModelRequestPayload&gt; result = hooks.forAgent("support").run(request);
	 * </pre>
	 * @param agent the agent's name
	 * @return a tester for that agent
	 * @throws IllegalArgumentException when the name is not a valid agent name
	 */
	public HookTester forAgent(String agent) {
		return new HookTester(this, AgentNames.check(agent));
	}

	/**
	 * Return the agent whose hooks this tester runs.
	 * @return the agent's name, {@code default} unless made with {@link #forAgent}
	 */
	public String agent() {
		return this.agent;
	}

	/**
	 * Discover the hooks of these beans with default timeouts. Each bean is named as
	 * Spring would name a component of its class ({@code SupportHooks} →
	 * {@code supportHooks}), which is the name in {@link io.mantlehooks.HookFailure}s and
	 * timeout keys.
	 * @param beans objects with hook methods
	 * @return a tester
	 * @throws HookDefinitionException when a hook method is invalid, as at startup
	 */
	public static HookTester of(Object... beans) {
		Builder builder = builder();
		for (Object bean : beans) {
			builder.bean(bean);
		}
		return builder.build();
	}

	/**
	 * Start a tester with custom timeouts or bean names.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Run the hooks of the payload's point, as a turn would: the modify hook, then the
	 * observers with the payload that continues. Waits for the observers too, so their
	 * effects can be asserted.
	 * @param <P> the payload type
	 * @param payload the payload; its type names the point
	 * @return what happened
	 */
	public <P extends HookPayload> HookResult<P> run(P payload) {
		Assert.notNull(payload, "'payload' must not be null");
		HookPoint point = pointOf(payload);
		HookScope scope = HookScope.none().withAgent(this.agent);
		HookRegistry.HookSet hooks = this.runner.hooks(scope);
		List<HookMethod> observers = hooks.observers(point);
		List<Map<HookOutcome, Long>> before = observers.stream().map(HookMethod::outcomeCounts).toList();
		ModifyResult<P> decided = this.runner.runAndWait(point, payload, scope);
		Map<String, HookOutcome> observed = awaitObservers(observers, before);
		HookMethod modifier = hooks.modifier(point);
		return new HookResult<>(point, payload, decided, (modifier != null) ? modifier.name() : null, observed);
	}

	private static HookPoint pointOf(HookPayload payload) {
		for (HookPoint point : HookPoint.values()) {
			if (point.payloadType().isInstance(payload)) {
				return point;
			}
		}
		throw new IllegalArgumentException("No hook point takes " + payload.getClass().getName());
	}

	/**
	 * Return the hooks this tester's agent runs, as {@code bean.method} names by point.
	 * @return the hook names
	 */
	public Map<HookPoint, List<String>> hooks() {
		Map<HookPoint, List<String>> hooks = new EnumMap<>(HookPoint.class);
		for (HookMethod hook : this.registry.forAgent(this.agent).hooks()) {
			hooks.computeIfAbsent(hook.point(), (point) -> new ArrayList<>()).add(hook.name());
		}
		return hooks;
	}

	private Map<String, HookOutcome> awaitObservers(List<HookMethod> observers, List<Map<HookOutcome, Long>> before) {
		Map<String, HookOutcome> outcomes = new LinkedHashMap<>();
		// every observer invocation ends in exactly one outcome; a hung one times out
		long deadline = System.nanoTime() + this.observeTimeout.multipliedBy(2).plusSeconds(5).toNanos();
		for (int i = 0; i < observers.size(); i++) {
			HookMethod observer = observers.get(i);
			HookOutcome outcome = null;
			while (outcome == null && System.nanoTime() < deadline) {
				outcome = newOutcome(before.get(i), observer.outcomeCounts());
				if (outcome == null) {
					sleepBriefly();
				}
			}
			if (outcome != null) {
				outcomes.put(observer.name(), outcome);
			}
		}
		return outcomes;
	}

	private static HookOutcome newOutcome(Map<HookOutcome, Long> before, Map<HookOutcome, Long> now) {
		for (Map.Entry<HookOutcome, Long> entry : now.entrySet()) {
			if (entry.getValue() > before.getOrDefault(entry.getKey(), 0L)) {
				return entry.getKey();
			}
		}
		return null;
	}

	private static void sleepBriefly() {
		try {
			Thread.sleep(2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for observers", ex);
		}
	}

	@Override
	public void close() {
		this.runner.destroy();
		this.executor.shutdownNow();
		try {
			this.executor.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Builds a {@link HookTester}.
	 */
	public static final class Builder {

		private final Map<String, Object> beans = new LinkedHashMap<>();

		private final Map<HookPoint, Duration> perPoint = new EnumMap<>(HookPoint.class);

		private final Map<String, String> perHook = new LinkedHashMap<>();

		private Duration observe = Duration.ofMillis(100);

		private Duration modify = Duration.ofMillis(500);

		private Builder() {
		}

		/**
		 * Add a bean named as Spring names a component of its class.
		 * @param bean an object with hook methods
		 * @return this builder
		 */
		public Builder bean(Object bean) {
			Assert.notNull(bean, "'bean' must not be null");
			return bean(Introspector.decapitalize(AopUtils.getTargetClass(bean).getSimpleName()), bean);
		}

		/**
		 * Add a bean under a name.
		 * @param name the bean name
		 * @param bean an object with hook methods
		 * @return this builder
		 */
		public Builder bean(String name, Object bean) {
			Assert.hasText(name, "'name' must not be empty");
			Assert.notNull(bean, "'bean' must not be null");
			Assert.isTrue(!this.beans.containsKey(name), () -> "A bean named '" + name + "' was already added");
			this.beans.put(name, bean);
			return this;
		}

		/**
		 * Set the lane defaults, like {@code mantle.hooks.timeouts.observe} and
		 * {@code .modify}.
		 * @param observe each observer's timeout
		 * @param modify each modify hook's timeout
		 * @return this builder
		 */
		public Builder timeouts(Duration observe, Duration modify) {
			this.observe = observe;
			this.modify = modify;
			return this;
		}

		/**
		 * Set a modify timeout for one point, like
		 * {@code mantle.hooks.timeouts.point.<point>}.
		 * @param point the point
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder timeout(HookPoint point, Duration timeout) {
			this.perPoint.put(point, timeout);
			return this;
		}

		/**
		 * Set one hook's timeout, like {@code mantle.hooks.timeouts.hook.<bean.method>}.
		 * @param hookName {@code beanName.methodName}
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder timeout(String hookName, Duration timeout) {
			this.perHook.put(hookName, timeout.toMillis() + "ms");
			return this;
		}

		/**
		 * Discover and validate the hooks.
		 * @return the tester
		 * @throws HookDefinitionException when a hook method is invalid
		 */
		public HookTester build() {
			Assert.state(!this.beans.isEmpty(), "Add at least one bean with hook methods");
			return new HookTester(this);
		}

	}

}
