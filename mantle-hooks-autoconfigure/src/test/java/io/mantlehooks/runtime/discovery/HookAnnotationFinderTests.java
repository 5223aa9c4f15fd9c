package io.mantlehooks.runtime.discovery;

import java.lang.annotation.Annotation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnModelResponse;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.annotation.StreamMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AliasFor;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The finder's shortcuts against Spring's merged-annotation search on every method, which
 * is what discovery did before: for each class shape the same hook methods, the same
 * annotations with the same attributes, and the same {@code @ForAgent} on the class and
 * on each hook method. The shapes are those where a shortcut could miss something:
 * composed annotations at one and two levels, repeatable composed annotations,
 * annotations inherited from superclasses and interfaces, generic interfaces (bridge
 * methods), overloads, CGLIB subclasses ({@code @Configuration} and class proxies).
 */
class HookAnnotationFinderTests {

	private static final Set<Class<? extends Annotation>> HOOK_TYPES = hookTypes();

	static Stream<Class<?>> shapes() {
		return Stream.of(Direct.class, Plain.class, UnrelatedAnnotations.class, Composed.class, ComposedTwice.class,
				ComposedWithAlias.class, TwoHookAnnotations.class, DirectAndComposedOfTheSameType.class,
				RepeatedComposed.class, InheritsHook.class, OverridesHookWithoutAnnotation.class,
				OverridesHookWithAnotherAnnotation.class, ImplementsAnnotatedInterface.class, InheritsDefaultHook.class,
				ImplementsGenericHook.class, Overloads.class, StaticAndPrivateHooks.class, AgentOnClass.class,
				AgentFromSuperclass.class, AgentFromInterface.class, ComposedAgentOnClass.class,
				ComposedHookCarryingAgent.class, AgentOnOverriddenMethod.class, AgentOnPlainMethodOnly.class,
				cglibProxyOf(Direct.class), cglibProxyOf(InheritsHook.class), cglibProxyOf(AgentOnClass.class),
				configurationClass());
	}

	@ParameterizedTest
	@MethodSource("shapes")
	void findsWhatTheMergedAnnotationSearchFinds(Class<?> type) {
		HookAnnotationFinder finder = new HookAnnotationFinder(HOOK_TYPES);
		Map<String, String> found = describe(finder.hookMethods(type), (method) -> finder.forAgent(method, type));
		Map<String, String> expected = describe(searchedHookMethods(type), HookAnnotationFinderTests::searchedAgent);
		assertThat(found).isEqualTo(expected);
		assertThat(describeAgent(finder.forAgent(type))).isEqualTo(describeAgent(searchedAgent(type)));
	}

	@Test
	void findsEveryHookOfTheShapesWithItsAttributesAndAgents() {
		HookAnnotationFinder finder = new HookAnnotationFinder(HOOK_TYPES);
		assertThat(describe(finder.hookMethods(Direct.class), (method) -> finder.forAgent(method, Direct.class)))
			.containsExactly(
					Map.entry("Direct.watch(ModelRequestPayload)", "[OnModelRequest{timeoutMs=50}] agents=none"));
		assertThat(finder.hookMethods(Plain.class)).isEmpty();
		assertThat(finder.hookMethods(UnrelatedAnnotations.class)).isEmpty();
		assertThat(describe(finder.hookMethods(ComposedTwice.class),
				(method) -> finder.forAgent(method, ComposedTwice.class)))
			.containsExactly(Map.entry("ComposedTwice.redact(ModelRequestPayload)",
					"[ModifyModelRequest{timeoutMs=7}] agents=[support]"));
		assertThat(describe(finder.hookMethods(ComposedWithAlias.class),
				(method) -> finder.forAgent(method, ComposedWithAlias.class)))
			.containsExactly(Map.entry("ComposedWithAlias.watch(ModelRequestPayload)",
					"[OnModelRequest{timeoutMs=99}] agents=none"));
		assertThat(finder.hookMethods(RepeatedComposed.class)).hasSize(1);
		assertThat(finder.hookMethods(TwoHookAnnotations.class).values()).singleElement()
			.satisfies((annotations) -> assertThat(annotations).hasSize(2));
		assertThat(finder.hookMethods(OverridesHookWithoutAnnotation.class).keySet()).singleElement()
			.satisfies(
					(method) -> assertThat(method.getDeclaringClass()).isEqualTo(OverridesHookWithoutAnnotation.class));
		assertThat(finder.hookMethods(ImplementsGenericHook.class).keySet()).singleElement()
			.satisfies((method) -> assertThat(method.isBridge()).isFalse());
		assertThat(finder.hookMethods(InheritsDefaultHook.class)).hasSize(1);
		assertThat(finder.hookMethods(Overloads.class)).hasSize(1);
		assertThat(finder.hookMethods(StaticAndPrivateHooks.class)).hasSize(2);
		assertThat(finder.forAgent(AgentFromInterface.class).getStringArray("value")).containsExactly("billing");
		assertThat(finder.forAgent(ComposedAgentOnClass.class).getStringArray("value")).containsExactly("support");
		Method overridden = finder.hookMethods(AgentOnOverriddenMethod.class).keySet().iterator().next();
		assertThat(finder.forAgent(overridden, AgentOnOverriddenMethod.class).getStringArray("value"))
			.containsExactly("billing");
		assertThat(finder.hookMethods(cglibProxyOf(Direct.class))).hasSize(1);
		assertThat(finder.hookMethods(configurationClass())).hasSize(1);
	}

	@Test
	void aClearedFinderFindsTheSameAgain() {
		HookAnnotationFinder finder = new HookAnnotationFinder(HOOK_TYPES);
		Map<String, String> first = describe(finder.hookMethods(ComposedTwice.class),
				(method) -> finder.forAgent(method, ComposedTwice.class));
		finder.clear();
		assertThat(describe(finder.hookMethods(ComposedTwice.class),
				(method) -> finder.forAgent(method, ComposedTwice.class)))
			.isEqualTo(first)
			.isNotEmpty();
	}

	/** What discovery did before the finder: the search on every method. */
	private static Map<Method, List<MergedAnnotation<Annotation>>> searchedHookMethods(Class<?> type) {
		return MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<List<MergedAnnotation<Annotation>>>) (method) -> {
					List<MergedAnnotation<Annotation>> found = HookAnnotationFinder.searchHookAnnotations(method,
							HOOK_TYPES);
					return found.isEmpty() ? null : found;
				});
	}

	private static MergedAnnotation<ForAgent> searchedAgent(Method method) {
		return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).get(ForAgent.class);
	}

	private static MergedAnnotation<ForAgent> searchedAgent(Class<?> type) {
		return MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).get(ForAgent.class);
	}

	private static Map<String, String> describe(Map<Method, List<MergedAnnotation<Annotation>>> methods,
			Function<Method, MergedAnnotation<ForAgent>> agent) {
		Map<String, String> described = new TreeMap<>();
		methods.forEach((method, annotations) -> described.put(
				method.getDeclaringClass().getSimpleName() + "." + signature(method),
				annotations.stream().map(HookAnnotationFinderTests::describe).toList() + " agents="
						+ describeAgent(agent.apply(method))));
		return described;
	}

	private static String signature(Method method) {
		return method.getName() + "("
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(","))
				+ ")";
	}

	private static String describe(MergedAnnotation<?> annotation) {
		return annotation.getType().getSimpleName() + new TreeMap<>(annotation.asMap());
	}

	private static String describeAgent(MergedAnnotation<ForAgent> agent) {
		return agent.isPresent() ? Arrays.toString(agent.getStringArray(MergedAnnotation.VALUE)) : "none";
	}

	private static Set<Class<? extends Annotation>> hookTypes() {
		Set<Class<? extends Annotation>> types = new LinkedHashSet<>();
		for (HookPoint point : HookPoint.values()) {
			if (point.modifyAnnotation() != null) {
				types.add(point.modifyAnnotation());
			}
			types.add(point.observeAnnotation());
		}
		return types;
	}

	private static Class<?> cglibProxyOf(Class<?> type) {
		ProxyFactory factory = new ProxyFactory(instantiate(type));
		factory.setProxyTargetClass(true);
		return factory.getProxy(HookAnnotationFinderTests.class.getClassLoader()).getClass();
	}

	private static Object instantiate(Class<?> type) {
		try {
			var constructor = type.getDeclaredConstructor();
			constructor.setAccessible(true);
			return constructor.newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The CGLIB subclass Spring makes of a {@code @Configuration} class. */
	private static Class<?> configurationClass() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(
				HookConfiguration.class)) {
			Class<?> type = context.getBean(HookConfiguration.class).getClass();
			assertThat(type).isNotEqualTo(HookConfiguration.class);
			return type;
		}
	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
	@ModifyModelRequest(timeoutMs = 7)
	@interface Redacting {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@Redacting
	@ForAgent("support")
	@interface SupportRedacting {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@OnModelRequest
	@interface Watching {

		@AliasFor(annotation = OnModelRequest.class, attribute = "timeoutMs")
		long timeout() default 99;

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@Repeatable(Audits.class)
	@OnModelRequest
	@interface Audit {

		String value();

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@interface Audits {

		Audit[] value();

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.TYPE)
	@ForAgent("support")
	@interface SupportAgent {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@interface Unrelated {

	}

	public static class Direct {

		public String first() {
			return "first";
		}

		@OnModelRequest(timeoutMs = 50)
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class Plain {

		public void watch(ModelRequestPayload payload) {
		}

	}

	@Unrelated
	public static class UnrelatedAnnotations {

		@Unrelated
		@Deprecated
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class Composed {

		@Redacting
		public ModelRequestPayload redact(ModelRequestPayload payload) {
			return payload;
		}

	}

	public static class ComposedTwice {

		@SupportRedacting
		public ModelRequestPayload redact(ModelRequestPayload payload) {
			return payload;
		}

		public ModelRequestPayload redact(ModelRequestPayload payload, String other) {
			return payload;
		}

	}

	public static class ComposedWithAlias {

		@Watching
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class TwoHookAnnotations {

		@OnModelRequest
		@OnModelResponse
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class DirectAndComposedOfTheSameType {

		@OnModelRequest(timeoutMs = 5)
		@Watching
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class RepeatedComposed {

		@Audit("one")
		@Audit("two")
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class InheritsHook extends Direct {

		public void other(ModelRequestPayload payload) {
		}

	}

	public static class OverridesHookWithoutAnnotation extends Direct {

		@Override
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class OverridesHookWithAnotherAnnotation extends Direct {

		@Override
		@OnModelResponse
		public void watch(ModelRequestPayload payload) {
		}

	}

	public interface AnnotatedHooks {

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		OutgoingTextPayload rewrite(OutgoingTextPayload payload);

	}

	public static class ImplementsAnnotatedInterface implements AnnotatedHooks {

		@Override
		public OutgoingTextPayload rewrite(OutgoingTextPayload payload) {
			return payload;
		}

	}

	public interface DefaultHook {

		@OnOutgoingText
		default void watch(OutgoingTextPayload payload) {
		}

	}

	public static class InheritsDefaultHook implements DefaultHook {

		public void plain() {
		}

	}

	public interface GenericHook<T> {

		@OnModelResponse
		void watch(T payload);

	}

	public static class ImplementsGenericHook implements GenericHook<ModelResponsePayload> {

		@Override
		public void watch(ModelResponsePayload payload) {
		}

	}

	public static class Overloads {

		public void watch() {
		}

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

		public void watch(ModelRequestPayload payload, String extra) {
		}

	}

	public static class StaticAndPrivateHooks {

		@OnModelRequest
		public static void watch(ModelRequestPayload payload) {
		}

		@OnModelResponse
		private void hidden(ModelResponsePayload payload) {
		}

	}

	@ForAgent({ "support", "billing" })
	public static class AgentOnClass {

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

		@ForAgent("billing")
		@OnModelResponse
		public void response(ModelResponsePayload payload) {
		}

	}

	public static class AgentFromSuperclass extends AgentOnClass {

		@OnOutgoingText
		public void text(OutgoingTextPayload payload) {
		}

	}

	@ForAgent("billing")
	public interface BillingHooks {

	}

	public static class AgentFromInterface implements BillingHooks {

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

	}

	@SupportAgent
	public static class ComposedAgentOnClass {

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class ComposedHookCarryingAgent {

		@SupportRedacting
		public ModelRequestPayload redact(ModelRequestPayload payload) {
			return payload;
		}

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class AgentOnMethodBase {

		@ForAgent("billing")
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class AgentOnOverriddenMethod extends AgentOnMethodBase {

		@Override
		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

	}

	public static class AgentOnPlainMethodOnly {

		@ForAgent("billing")
		public void plain(ModelRequestPayload payload) {
		}

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

	}

	@Configuration(proxyBeanMethods = true)
	public static class HookConfiguration {

		@Bean
		String name() {
			return "name";
		}

		@OnModelRequest
		public void watch(ModelRequestPayload payload) {
		}

	}

}
