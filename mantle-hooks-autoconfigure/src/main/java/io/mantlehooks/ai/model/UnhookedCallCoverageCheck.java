package io.mantlehooks.ai.model;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

import io.mantlehooks.HookPoint;
import io.mantlehooks.UnhookedCallPolicy;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Once the context is up, lets the unhooked-call detector see the calls of models it
 * cannot proxy, or says that it cannot. A bean that could not be proxied (a final class
 * such as {@code OpenAiChatModel}), and a model the application builds itself, is checked
 * only through Spring AI's model observations: {@link UnhookedCallObservationHandler} is
 * added to the application's {@code ObservationRegistry} here. When that registry had no
 * handler before it (no Actuator, no tracing, no console), the registry also gets
 * {@link ChatModelObservationsOnly}, so that the handler, which makes the registry
 * active, does not make every other observation of every turn be created for nobody. The
 * starter brings Boot's observation module, so the warning here speaks only when an
 * application has removed or replaced it; a bypass is never silent.
 * <p>
 * Handlers are read once, here: an application that adds an observation handler to the
 * registry itself after startup (not as a bean) while no other handler existed would see
 * only chat-model observations.
 */
public final class UnhookedCallCoverageCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(UnhookedCallCoverageCheck.class);

	private final ObjectProvider<ChatModelBeanPostProcessor> models;

	private final ObjectProvider<UnhookedCallDetector> detector;

	private final Supplier<Set<HookPoint>> pointsWithHooks;

	private final ObjectProvider<ObservationRegistry> observationRegistry;

	/**
	 * Create the check.
	 * @param models the post-processor that knows which model beans it could not proxy
	 * @param detector the detector, for its policy
	 * @param pointsWithHooks the points with hooks: without any there is nothing to guard
	 * @param observationRegistry the registry Spring AI's models report to, as they
	 * resolve it (a unique bean)
	 */
	public UnhookedCallCoverageCheck(ObjectProvider<ChatModelBeanPostProcessor> models,
			ObjectProvider<UnhookedCallDetector> detector, Supplier<Set<HookPoint>> pointsWithHooks,
			ObjectProvider<ObservationRegistry> observationRegistry) {
		this.models = models;
		this.detector = detector;
		this.pointsWithHooks = pointsWithHooks;
		this.observationRegistry = observationRegistry;
	}

	@Override
	public void afterSingletonsInstantiated() {
		UnhookedCallDetector unhookedCalls = this.detector.getIfAvailable();
		if (unhookedCalls == null || unhookedCalls.policy() == UnhookedCallPolicy.IGNORE
				|| this.pointsWithHooks.get().isEmpty()) {
			return;
		}
		// Spring AI's model auto-configurations take the registry with getIfUnique, so
		// do we
		ObservationRegistry registry = this.observationRegistry.getIfUnique();
		if (registry != null && registry != ObservationRegistry.NOOP) {
			boolean listened = !registry.isNoop();
			registry.observationConfig().observationHandler(new UnhookedCallObservationHandler(unhookedCalls));
			if (!listened) {
				registry.observationConfig().observationPredicate(new ChatModelObservationsOnly());
			}
			return;
		}
		ChatModelBeanPostProcessor processor = this.models.getIfAvailable();
		List<String> unproxied = (processor != null) ? processor.getUnproxiedModels() : List.of();
		if (unproxied.isEmpty()) {
			return;
		}
		logger.warn("Calls outside a hooked turn to ChatModel " + String.join(", ", unproxied)
				+ " go unnoticed: the class cannot be proxied, so such calls are seen only through Spring AI's model "
				+ "observations, and the application has no single ObservationRegistry (mantle.hooks.unhooked-calls="
				+ unhookedCalls.policy().name().toLowerCase(Locale.ROOT)
				+ " cannot apply to them). Keep Spring Boot's ObservationAutoConfiguration (module "
				+ "spring-boot-micrometer-observation, which the mantle-hooks starter brings) or define one "
				+ "ObservationRegistry bean.");
	}

}
