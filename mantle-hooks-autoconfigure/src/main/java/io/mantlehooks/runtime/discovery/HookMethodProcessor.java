package io.mantlehooks.runtime.discovery;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.mantlehooks.AgentNames;
import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookProblem;
import io.mantlehooks.HookRejection;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.guard.HookGuards;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Finds hook methods on all beans once every singleton is instantiated, validates them
 * and installs them in the {@link HookRegistry}. Any problem fails startup with a
 * {@link HookDefinitionException} that lists all of them.
 * <p>
 * Works the way Spring's {@code EventListenerMethodProcessor} does: merged-annotation
 * lookup (so composed annotations work), AOP proxies resolved to their target class, and
 * classes without hooks remembered so they are inspected once.
 */
public final class HookMethodProcessor implements SmartInitializingSingleton, BeanFactoryAware {

	private static final Log logger = LogFactory.getLog(HookMethodProcessor.class);

	private static final Map<Class<? extends Annotation>, Binding> BINDINGS = bindings();

	private final HookRegistry registry;

	private final HookTimeouts timeouts;

	private final HookGuards guards;

	private final String timeoutsPrefix;

	private final String circuitBreakerPrefix;

	private final HookAnnotationFinder finder = new HookAnnotationFinder(BINDINGS.keySet());

	private final Set<Class<?>> classesWithoutHooks = Collections.newSetFromMap(new ConcurrentHashMap<>(64));

	/** The hook methods of each class scanned, until the hooks are installed. */
	private final Map<Class<?>, Map<Method, List<MergedAnnotation<Annotation>>>> scannedClasses = new ConcurrentHashMap<>();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private volatile @Nullable Set<HookPoint> predictedPoints;

	/**
	 * Create a processor.
	 * @param registry the registry to fill
	 * @param timeouts the timeout configuration
	 * @param timeoutsPrefix the configuration prefix of the timeouts, for error messages
	 */
	public HookMethodProcessor(HookRegistry registry, HookTimeouts timeouts, String timeoutsPrefix) {
		this(registry, timeouts, timeoutsPrefix, HookGuards.defaults());
	}

	/**
	 * Create a processor.
	 * @param registry the registry to fill
	 * @param timeouts the timeout configuration
	 * @param timeoutsPrefix the configuration prefix of the timeouts, for error messages
	 * @param guards makes each hook's time limiter and bulkhead
	 */
	public HookMethodProcessor(HookRegistry registry, HookTimeouts timeouts, String timeoutsPrefix, HookGuards guards) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(timeouts, "'timeouts' must not be null");
		Assert.notNull(guards, "'guards' must not be null");
		this.registry = registry;
		this.timeouts = timeouts;
		this.timeoutsPrefix = timeoutsPrefix;
		// the timeouts' sibling group: mantle.hooks.timeouts
		// -> mantle.hooks.circuit-breaker
		this.circuitBreakerPrefix = (timeoutsPrefix.endsWith(".timeouts")
				? timeoutsPrefix.substring(0, timeoutsPrefix.length() - ".timeouts".length()) : timeoutsPrefix)
				+ ".circuit-breaker";
		this.guards = guards;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		Assert.isInstanceOf(ConfigurableListableBeanFactory.class, beanFactory,
				"HookMethodProcessor requires a ConfigurableListableBeanFactory");
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		Assert.state(beanFactory != null, "No BeanFactory set");
		List<HookProblem> problems = new ArrayList<>(this.timeouts.validate(this.timeoutsPrefix));
		List<HookProblem> guardProblems = this.guards.validate(this.circuitBreakerPrefix);
		problems.addAll(guardProblems);
		List<HookCandidate> candidates = new ArrayList<>();
		Set<HookCandidate> misnamed = new HashSet<>();
		for (String beanName : beanFactory.getBeanNamesForType(Object.class)) {
			if (!ScopedProxyUtils.isScopedTarget(beanName)) {
				Class<?> type = targetType(beanFactory, beanName);
				if (type != null) {
					collect(beanName, type, candidates, misnamed, problems);
				}
			}
		}
		// a validator per run: what it reads of class files is not kept after startup
		HookMethodValidator validator = new HookMethodValidator();
		candidates.forEach((candidate) -> problems.addAll(validator.validate(candidate)));
		problems.addAll(validator.checkOneModifierPerPoint(withoutMisnamed(candidates, misnamed)));
		List<HookMethod> hooks = new ArrayList<>(candidates.size());
		// hooks cannot get their guards while the guards' settings are invalid
		for (HookCandidate candidate : guardProblems.isEmpty() ? candidates : List.<HookCandidate>of()) {
			try {
				hooks.add(toHookMethod(beanFactory, candidate));
			}
			catch (IllegalStateException ex) {
				// AopUtils cannot call this method through the bean's proxy
				problems.add(new HookProblem(
						candidate.describe() + " cannot be invoked on its proxied bean: " + ex.getMessage(),
						"Make the method public (or at least not private) so the proxy can call it."));
			}
		}
		if (!problems.isEmpty()) {
			throw new HookDefinitionException(problems);
		}
		warnAboutUnknownResponses(beanFactory, candidates, validator);
		validator.clear();
		this.finder.clear();
		this.classesWithoutHooks.clear();
		this.scannedClasses.clear();
		this.registry.install(hooks);
		logSummary(hooks);
	}

	/**
	 * A rejection that names a reply nobody defined sends the packaged fallback: almost
	 * always a typo, so say so now rather than when a user first meets it.
	 */
	private static void warnAboutUnknownResponses(ConfigurableListableBeanFactory beanFactory,
			List<HookCandidate> candidates, HookMethodValidator validator) {
		HookResponses responses = beanFactory.getBeanProvider(HookResponses.class).getIfAvailable();
		if (responses == null) {
			return;
		}
		Locale locale = Locale.getDefault();
		for (HookCandidate candidate : candidates) {
			if (candidate.lane() == HookLane.MODIFY && candidate.point().allowsSignal(HookRejection.class)) {
				for (String name : validator.rejectionResponseNames(candidate)) {
					if (!responses.isKnown(name, locale)) {
						logger.warn(candidate.describe() + " rejects with response '" + name
								+ "', which resolves to nothing: it is neither in mantle.hooks.responses nor in the "
								+ "MessageSource for the default locale (" + locale + "), so users would get the "
								+ "packaged reply instead. Define it, or fix the name.");
					}
				}
			}
		}
	}

	/**
	 * Return the points that have hooks. Once discovery has run this is exact; before (a
	 * {@code ChatClient} built while singletons are still being created) it is predicted
	 * from the bean definitions, without creating any bean: each bean's type as its
	 * definition declares it. A hook on a bean whose declared type hides the hook's class
	 * (an interface-typed {@code @Bean} method) is found only by discovery.
	 * @return the points with at least one hook
	 */
	public Set<HookPoint> pointsWithHooks() {
		if (this.registry.isInstalled()) {
			return this.registry.pointsWithHooks();
		}
		Set<HookPoint> predicted = this.predictedPoints;
		if (predicted == null) {
			predicted = predictPoints();
			this.predictedPoints = predicted;
		}
		return predicted;
	}

	/**
	 * Discover and validate the hooks from the bean definitions alone, as the AOT build
	 * sees them: the same checks as at startup, so a bad hook fails the build. What the
	 * bytecode check found is returned to be recorded, since a native image has no class
	 * files to read.
	 * @return the hook methods found and what their bytecode constructs
	 * @throws HookDefinitionException when a hook is invalid
	 */
	RecordedChecks checkAheadOfTime() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		Assert.state(beanFactory != null, "No BeanFactory set");
		List<HookProblem> problems = new ArrayList<>(this.timeouts.validate(this.timeoutsPrefix));
		problems.addAll(this.guards.validate(this.circuitBreakerPrefix));
		List<HookCandidate> candidates = new ArrayList<>();
		Set<HookCandidate> misnamed = new HashSet<>();
		for (String beanName : beanFactory.getBeanNamesForType(Object.class, true, false)) {
			if (!ScopedProxyUtils.isScopedTarget(beanName)) {
				Class<?> type = predictedType(beanFactory, beanName);
				if (type != null) {
					collect(beanName, type, candidates, misnamed, problems);
				}
			}
		}
		HookMethodValidator validator = new HookMethodValidator();
		candidates.forEach((candidate) -> problems.addAll(validator.validate(candidate)));
		problems.addAll(validator.checkOneModifierPerPoint(withoutMisnamed(candidates, misnamed)));
		if (!problems.isEmpty()) {
			throw new HookDefinitionException(problems);
		}
		RecordedChecks recorded = new RecordedChecks();
		for (HookCandidate candidate : candidates) {
			recorded.record(candidate.method(), validator.constructedSignals(candidate),
					validator.rejectionResponseNames(candidate));
		}
		this.finder.clear();
		this.classesWithoutHooks.clear();
		this.scannedClasses.clear();
		return recorded;
	}

	private Set<HookPoint> predictPoints() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		Assert.state(beanFactory != null, "No BeanFactory set");
		List<HookCandidate> candidates = new ArrayList<>();
		List<HookProblem> ignored = new ArrayList<>();
		for (String beanName : beanFactory.getBeanNamesForType(Object.class, true, false)) {
			if (!ScopedProxyUtils.isScopedTarget(beanName)) {
				Class<?> type = predictedType(beanFactory, beanName);
				if (type != null) {
					collect(beanName, type, candidates, new HashSet<>(), ignored);
				}
			}
		}
		Set<HookPoint> points = EnumSet.noneOf(HookPoint.class);
		candidates.forEach((candidate) -> points.add(candidate.point()));
		return Set.copyOf(points);
	}

	private static @Nullable Class<?> predictedType(ConfigurableListableBeanFactory beanFactory, String beanName) {
		try {
			Class<?> type = beanFactory.getType(beanName, false);
			return (type != null) ? ClassUtils.getUserClass(type) : null;
		}
		catch (Throwable ex) {
			logger.debug("Could not predict the type of bean '" + beanName + "'", ex);
			return null;
		}
	}

	private @Nullable Class<?> targetType(ConfigurableListableBeanFactory beanFactory, String beanName) {
		Class<?> type = null;
		try {
			type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
		}
		catch (Throwable ex) {
			// An unresolvable bean type - probably a lazy bean - cannot carry hooks we
			// can find; the EventListenerMethodProcessor ignores these too.
			logger.debug("Could not resolve target class for bean with name '" + beanName + "'", ex);
		}
		if (type != null && ScopedObject.class.isAssignableFrom(type)) {
			try {
				Class<?> targetClass = AutoProxyUtils.determineTargetClass(beanFactory,
						ScopedProxyUtils.getTargetBeanName(beanName));
				if (targetClass != null) {
					type = targetClass;
				}
			}
			catch (Throwable ex) {
				logger.debug("Could not resolve target bean for scoped proxy '" + beanName + "'", ex);
			}
		}
		return type;
	}

	/**
	 * The candidates to count in the modify-hook check: a hook whose {@code @ForAgent} is
	 * already reported as invalid belongs to no agent we could name, so counting it (as a
	 * hook of every agent, or of its misspelled agent) would report a conflict that is
	 * not there.
	 */
	private static List<HookCandidate> withoutMisnamed(List<HookCandidate> candidates, Set<HookCandidate> misnamed) {
		return misnamed.isEmpty() ? candidates
				: candidates.stream().filter((candidate) -> !misnamed.contains(candidate)).toList();
	}

	private void collect(String beanName, Class<?> targetType, List<HookCandidate> candidates,
			Set<HookCandidate> misnamed, List<HookProblem> problems) {
		if (this.classesWithoutHooks.contains(targetType)
				|| !AnnotationUtils.isCandidateClass(targetType, BINDINGS.keySet())) {
			return;
		}
		// a class scanned to predict the points (a ChatClient built early) is not scanned
		// again at discovery
		Map<Method, List<MergedAnnotation<Annotation>>> annotatedMethods = this.scannedClasses
			.computeIfAbsent(targetType, this.finder::hookMethods);
		if (annotatedMethods.isEmpty()) {
			this.classesWithoutHooks.add(targetType);
			this.scannedClasses.remove(targetType);
			return;
		}
		// the class's @ForAgent is read once, not once per hook method
		AgentScope classScope = AgentScope.of(this.finder.forAgent(targetType), "its class " + targetType.getName());
		// a loop, not forEach: on a cold JVM a lambda's first use costs more than this
		for (Map.Entry<Method, List<MergedAnnotation<Annotation>>> hookMethod : annotatedMethods.entrySet()) {
			Method method = hookMethod.getKey();
			List<MergedAnnotation<Annotation>> annotations = hookMethod.getValue();
			if (annotations.size() > 1) {
				String names = annotations.stream()
					.map((annotation) -> "@" + annotation.getType().getSimpleName())
					.collect(Collectors.joining(", "));
				problems.add(new HookProblem(
						"Method '" + beanName + "." + method.getName() + "' (" + method.getDeclaringClass().getName()
								+ "." + method.getName() + ") has " + annotations.size() + " hook annotations (" + names
								+ "), but a method serves one point and lane.",
						"Keep one hook annotation on the method; write one method per hook."));
				continue;
			}
			MergedAnnotation<Annotation> annotation = annotations.get(0);
			Binding binding = BINDINGS.get(annotation.getType());
			AgentScope methodScope = AgentScope.of(this.finder.forAgent(method, targetType), "its method");
			AgentScope scope = methodScope.declared() ? methodScope : classScope;
			HookCandidate candidate = new HookCandidate(beanName, method, annotation.getType(), binding.point(),
					binding.lane(), annotation.getLong("timeoutMs"), streamMode(annotation), scope.agents());
			if (!checkAgents(candidate, scope, problems)) {
				misnamed.add(candidate);
			}
			candidates.add(candidate);
		}
	}

	/**
	 * Report an empty or invalid {@code @ForAgent}.
	 * @return whether the hook's agents are valid
	 */
	private static boolean checkAgents(HookCandidate candidate, AgentScope scope, List<HookProblem> problems) {
		if (scope.declared() && scope.agents().isEmpty()) {
			problems.add(new HookProblem(
					candidate.describe() + " has @ForAgent without any agent name (on " + scope.where()
							+ "), so it would run in no turn.",
					"Name the agents, e.g. @ForAgent(\"support\"), or remove @ForAgent so the hook belongs to every "
							+ "agent."));
			return false;
		}
		boolean valid = true;
		for (String agent : scope.agents()) {
			String problem = AgentNames.problem(agent);
			if (problem != null) {
				problems.add(new HookProblem(
						candidate.describe() + " has an invalid @ForAgent name (on " + scope.where() + "): " + problem
								+ ".",
						"Use the name the ChatClient gives to MantleHooks.agent(...), e.g. @ForAgent(\"support\")."));
				valid = false;
			}
		}
		return valid;
	}

	private static StreamMode streamMode(MergedAnnotation<Annotation> annotation) {
		return annotation.getValue("stream", StreamMode.class).orElse(StreamMode.WHOLE);
	}

	private HookMethod toHookMethod(ConfigurableListableBeanFactory beanFactory, HookCandidate candidate) {
		String beanName = candidate.beanName();
		Method invocable = AopUtils.selectInvocableMethod(candidate.method(), beanFactory.getType(beanName));
		Supplier<Object> bean = new BeanLookup(beanFactory, beanName);
		if (beanFactory.containsSingleton(beanName) || beanFactory.isSingleton(beanName)) {
			bean = SingletonSupplier.of(bean);
		}
		HookTimeouts.Resolved timeout = this.timeouts.resolve(candidate.hookName(), candidate.point(), candidate.lane(),
				candidate.annotationTimeoutMs());
		return new HookMethod(beanName, candidate.point(), candidate.lane(), invocable, bean, timeout.timeout(),
				timeout.source(),
				this.guards.forHook(candidate.hookName(), candidate.point(), candidate.lane(), timeout.timeout()),
				candidate.streamMode(), candidate.agents());
	}

	private static void logPoints(HookRegistry.HookSet hooks, String where) {
		for (HookPoint point : HookPoint.values()) {
			if (hooks.hasHooks(point)) {
				HookMethod modifier = hooks.modifier(point);
				List<HookMethod> observers = hooks.observers(point);
				logger.info("Hook point " + point.configName() + where + ": modify hook "
						+ ((modifier != null) ? "'" + modifier.name() + "'" : "none") + ", " + observers.size()
						+ ((observers.size() == 1) ? " observer" : " observers"));
			}
		}
	}

	private void logSummary(List<HookMethod> hooks) {
		logPoints(this.registry.everyAgent(), "");
		for (String agent : this.registry.agents()) {
			logPoints(this.registry.forAgent(agent), " in agent '" + agent + "'");
		}
		Set<String> names = new LinkedHashSet<>();
		hooks.forEach((hook) -> names.add(hook.name()));
		List<String> unmatched = this.timeouts.unmatchedHookKeys(names);
		if (!unmatched.isEmpty()) {
			logger.warn(this.timeoutsPrefix + ".hook has entries for hooks that do not exist: " + unmatched
					+ "; known hooks are " + names);
		}
		List<String> unmatchedBreakers = this.guards.unmatchedBreakerKeys(names);
		if (!unmatchedBreakers.isEmpty()) {
			logger
				.warn(this.circuitBreakerPrefix + ".hook has entries for hooks that do not exist: " + unmatchedBreakers
						+ "; known hooks are " + names + " (write a key with a dot in brackets: \"[bean.method]\")");
		}
		List<HookPoint> observeOnly = this.timeouts.pointsWithoutModifyLane();
		if (!observeOnly.isEmpty()) {
			logger.warn(this.timeoutsPrefix + ".point has entries for points without a modify lane, where they never "
					+ "apply: " + observeOnly.stream().map(HookPoint::configName).toList() + "; observe hooks use "
					+ this.timeoutsPrefix + ".observe or a per-hook timeout");
		}
	}

	private static Map<Class<? extends Annotation>, Binding> bindings() {
		Map<Class<? extends Annotation>, Binding> bindings = new LinkedHashMap<>();
		for (HookPoint point : HookPoint.values()) {
			Class<? extends Annotation> modifyAnnotation = point.modifyAnnotation();
			if (modifyAnnotation != null) {
				bindings.put(modifyAnnotation, new Binding(point, HookLane.MODIFY));
			}
			bindings.put(point.observeAnnotation(), new Binding(point, HookLane.OBSERVE));
		}
		return Collections.unmodifiableMap(bindings);
	}

	/**
	 * The {@code @ForAgent} of a method or a class, read once: the names as declared, so
	 * that invalid ones reach {@link #checkAgents}.
	 *
	 * @param agents the declared names, empty when absent or empty
	 * @param declared whether {@code @ForAgent} is present
	 * @param where where it is, for the report
	 */
	private record AgentScope(Set<String> agents, boolean declared, String where) {

		static final AgentScope NONE = new AgentScope(Set.of(), false, "");

		static AgentScope of(MergedAnnotation<ForAgent> forAgent, String where) {
			if (!forAgent.isPresent()) {
				return NONE;
			}
			return new AgentScope(new LinkedHashSet<>(Arrays.asList(forAgent.getStringArray(MergedAnnotation.VALUE))),
					true, where);
		}

	}

	private record Binding(HookPoint point, HookLane lane) {
	}

	/**
	 * The hook's bean, looked up on each call (a prototype or scoped bean) or once (a
	 * singleton, wrapped in a {@link SingletonSupplier}). A class rather than a lambda:
	 * made for every hook while the application starts, on a cold JVM.
	 */
	private record BeanLookup(BeanFactory beanFactory, String beanName) implements Supplier<Object> {

		@Override
		public Object get() {
			return this.beanFactory.getBean(this.beanName);
		}

	}

}
