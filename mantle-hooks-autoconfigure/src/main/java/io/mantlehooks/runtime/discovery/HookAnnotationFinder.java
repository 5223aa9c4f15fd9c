package io.mantlehooks.runtime.discovery;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.mantlehooks.annotation.ForAgent;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the hook annotations and {@code @ForAgent} of a bean class's methods as Spring's
 * merged-annotation search ({@link SearchStrategy#TYPE_HIERARCHY}) does, without running
 * that search where a look at the declared annotations of the class's type hierarchy
 * shows it would find nothing. On a cold JVM the merged search per method was the largest
 * part of finding hooks, and most methods of a hook bean carry no annotation at all.
 * <p>
 * Per annotation type it is worked out once whether it is, or is meta-annotated at any
 * depth with, a hook annotation or {@code @ForAgent} (a repeatable container counts as
 * both, so its contents are searched). A method is searched only if some method of the
 * hierarchy with its name and number of parameters (a superset of the methods it can
 * override) declares such an annotation. A hook method that is the only one of its
 * signature there and carries a single hook annotation directly (the common case) gets
 * that annotation without the search; every other annotated method is searched as before.
 * Holds what it learns until {@link #clear()}: discovery runs once.
 */
final class HookAnnotationFinder {

	private static final Relevance NONE = new Relevance(false, false, false);

	private final Set<Class<? extends Annotation>> hookTypes;

	private final Map<Class<? extends Annotation>, Relevance> relevance = new ConcurrentHashMap<>();

	private final Map<Class<?>, Facts> facts = new ConcurrentHashMap<>();

	/**
	 * Create a finder.
	 * @param hookTypes the hook annotations
	 */
	HookAnnotationFinder(Set<Class<? extends Annotation>> hookTypes) {
		this.hookTypes = Set.copyOf(hookTypes);
	}

	/**
	 * Return the methods of a class that carry hook annotations, directly or as
	 * meta-annotations, with those annotations (each type once), as
	 * {@link MethodIntrospector#selectMethods} selects them.
	 * @param type the bean class
	 * @return the hook methods, empty when there are none
	 */
	Map<Method, List<MergedAnnotation<Annotation>>> hookMethods(Class<?> type) {
		Facts facts = facts(type);
		if (facts.hookMethods().isEmpty() && facts != Facts.UNKNOWN) {
			return Collections.emptyMap();
		}
		if (facts != Facts.UNKNOWN && type.getSuperclass() == Object.class && type.getInterfaces().length == 0) {
			return ownHookMethods(facts);
		}
		return MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<List<MergedAnnotation<Annotation>>>) (method) -> {
					List<MergedAnnotation<Annotation>> found = hookAnnotations(method, facts);
					return found.isEmpty() ? null : found;
				});
	}

	/**
	 * What {@link MethodIntrospector#selectMethods} selects on a class directly below
	 * {@code Object} with no interfaces (the common bean class, and no JDK or CGLIB
	 * proxy, which always has a superclass or interfaces): its own methods that are not
	 * bridges or synthetic, each its own most specific method, in declaration order. The
	 * same answer without the walk over the type hierarchy and the per-method
	 * most-specific and bridge lookups, which on a cold JVM cost about as much as the
	 * annotations themselves. The class's own methods with hook-relevant annotations are
	 * those {@link #learn(Class)} listed, in declaration order (it looked at this class
	 * only): a method it did not list carries no annotation the search could find.
	 */
	private Map<Method, List<MergedAnnotation<Annotation>>> ownHookMethods(Facts facts) {
		Map<Method, List<MergedAnnotation<Annotation>>> found = new LinkedHashMap<>();
		for (Listed listed : facts.inOrder()) {
			Method method = listed.annotated().method();
			if (ReflectionUtils.USER_DECLARED_METHODS.matches(method)) {
				// the list learn made for its signature: no signature to build again
				List<MergedAnnotation<Annotation>> annotations = hookAnnotations(method, listed.sameSignature());
				if (!annotations.isEmpty()) {
					found.put(method, annotations);
				}
			}
		}
		return found;
	}

	/**
	 * Return the {@code @ForAgent} of a class, searched through its type hierarchy.
	 * @param type the bean class
	 * @return the annotation, or a missing one
	 */
	MergedAnnotation<ForAgent> forAgent(Class<?> type) {
		Facts facts = facts(type);
		if (!facts.agentOnTypes() && facts != Facts.UNKNOWN) {
			return MergedAnnotation.missing();
		}
		return MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).get(ForAgent.class);
	}

	/**
	 * Return the {@code @ForAgent} of a method, searched through the methods it
	 * overrides.
	 * @param method a method of the bean class or of one of its supertypes
	 * @param type the bean class
	 * @return the annotation, or a missing one
	 */
	MergedAnnotation<ForAgent> forAgent(Method method, Class<?> type) {
		Facts facts = facts(type);
		// no method of the hierarchy declares @ForAgent (the common case): no signature
		// to build
		if (facts != Facts.UNKNOWN
				&& (facts.agentMethods().isEmpty() || !facts.agentMethods().contains(signature(method)))) {
			return MergedAnnotation.missing();
		}
		return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).get(ForAgent.class);
	}

	/**
	 * Forget what was learnt about classes and annotation types.
	 */
	void clear() {
		this.facts.clear();
		this.relevance.clear();
	}

	/**
	 * The hook annotations on a method, directly or as meta-annotations: one pass over
	 * what the method carries rather than one lookup per hook annotation.
	 */
	private List<MergedAnnotation<Annotation>> hookAnnotations(Method method, Facts facts) {
		if (facts == Facts.UNKNOWN) {
			return searchHookAnnotations(method, this.hookTypes);
		}
		List<Annotated> sameSignature = facts.hookMethods().get(signature(method));
		return (sameSignature != null) ? hookAnnotations(method, sameSignature) : List.of();
	}

	/**
	 * The hook annotations on a method, given the methods of its hierarchy with its name
	 * and number of parameters that declare hook-relevant annotations: the one it
	 * declares directly when it is the only such method and carries a single hook
	 * annotation, else what the search finds.
	 */
	private List<MergedAnnotation<Annotation>> hookAnnotations(Method method, List<Annotated> sameSignature) {
		if (sameSignature.size() == 1) {
			Annotated only = sameSignature.get(0);
			if (only.direct() != null && only.method().equals(method)) {
				return List.of(MergedAnnotation.from(method, only.direct()));
			}
		}
		return searchHookAnnotations(method, this.hookTypes);
	}

	/**
	 * Spring's merged-annotation search for the hook annotations of a method: what every
	 * method went through before the finder, and still the answer for any method the
	 * finder cannot settle from the declared annotations.
	 */
	static List<MergedAnnotation<Annotation>> searchHookAnnotations(Method method,
			Set<Class<? extends Annotation>> hookTypes) {
		List<MergedAnnotation<Annotation>> found = List.of();
		for (MergedAnnotation<Annotation> annotation : (Iterable<MergedAnnotation<Annotation>>) MergedAnnotations
			.from(method, SearchStrategy.TYPE_HIERARCHY)
			.stream()::iterator) {
			Class<Annotation> type = annotation.getType();
			if (hookTypes.contains(type) && found.stream().noneMatch((known) -> known.getType() == type)) {
				if (found.isEmpty()) {
					found = new ArrayList<>(1);
				}
				found.add(annotation);
			}
		}
		return found;
	}

	private Facts facts(Class<?> type) {
		Facts known = this.facts.get(type);
		if (known == null) {
			try {
				known = learn(type);
			}
			catch (Throwable ex) {
				// Spring's search skips what it cannot introspect (and logs it): leave
				// such a class to the search rather than fail here
				known = Facts.UNKNOWN;
			}
			this.facts.put(type, known);
		}
		return known;
	}

	/**
	 * Look at the declared annotations of every class and interface above a class, and of
	 * their methods: everything the type-hierarchy search could reach.
	 */
	private Facts learn(Class<?> type) {
		Map<String, List<Annotated>> hookMethods = new HashMap<>();
		List<Listed> inOrder = new ArrayList<>();
		Set<String> agentMethods = new HashSet<>();
		boolean agentOnTypes = false;
		Set<Class<?>> seen = new HashSet<>();
		Deque<Class<?>> pending = new ArrayDeque<>();
		pending.add(type);
		while (!pending.isEmpty()) {
			Class<?> current = pending.poll();
			if (current == Object.class || !seen.add(current)) {
				continue;
			}
			for (Annotation annotation : current.getDeclaredAnnotations()) {
				agentOnTypes |= relevance(annotation.annotationType()).agent();
			}
			for (Method method : ReflectionUtils.getDeclaredMethods(current)) {
				Annotation[] annotations = method.getDeclaredAnnotations();
				if (annotations.length > 0) {
					learn(method, annotations, hookMethods, inOrder, agentMethods);
				}
			}
			if (current.getSuperclass() != null) {
				pending.add(current.getSuperclass());
			}
			Collections.addAll(pending, current.getInterfaces());
		}
		return new Facts(hookMethods, inOrder, agentMethods, agentOnTypes);
	}

	private void learn(Method method, Annotation[] annotations, Map<String, List<Annotated>> hookMethods,
			List<Listed> inOrder, Set<String> agentMethods) {
		int hookRelevant = 0;
		Annotation direct = null;
		for (Annotation annotation : annotations) {
			Relevance relevance = relevance(annotation.annotationType());
			if (relevance.hook()) {
				hookRelevant++;
				direct = relevance.direct() ? annotation : null;
			}
			if (relevance.agent()) {
				agentMethods.add(signature(method));
			}
		}
		if (hookRelevant > 0) {
			String signature = signature(method);
			List<Annotated> known = hookMethods.get(signature);
			if (known == null) {
				known = new ArrayList<>(1);
				hookMethods.put(signature, known);
			}
			// an interface's default method is listed with each class that inherits it
			if (!listed(known, method)) {
				Annotated annotated = new Annotated(method, (hookRelevant == 1) ? direct : null);
				known.add(annotated);
				inOrder.add(new Listed(annotated, known));
			}
		}
	}

	/**
	 * Whether the method is listed already (a loop, not a stream: this runs for every
	 * hook method, mostly before the JIT has compiled anything).
	 */
	private static boolean listed(List<Annotated> known, Method method) {
		for (Annotated annotated : known) {
			if (annotated.method().equals(method)) {
				return true;
			}
		}
		return false;
	}

	private Relevance relevance(Class<? extends Annotation> type) {
		Relevance known = this.relevance.get(type);
		if (known == null) {
			known = relevanceOf(type);
			this.relevance.put(type, known);
		}
		return known;
	}

	/**
	 * Whether an annotation type is, or is meta-annotated with, a hook annotation or
	 * {@code @ForAgent}, by Spring's own reading of its meta-annotations.
	 */
	private Relevance relevanceOf(Class<? extends Annotation> type) {
		if (mayBeContainer(type)) {
			// a repeatable container: what it holds is found by the search
			return new Relevance(true, false, true);
		}
		boolean hook = this.hookTypes.contains(type);
		boolean metaHook = false;
		boolean agent = type == ForAgent.class;
		for (MergedAnnotation<Annotation> meta : (Iterable<MergedAnnotation<Annotation>>) MergedAnnotations.from(type)
			.stream()::iterator) {
			metaHook |= this.hookTypes.contains(meta.getType());
			agent |= ForAgent.class.equals(meta.getType());
		}
		if (!hook && !metaHook && !agent) {
			return NONE;
		}
		return new Relevance(hook || metaHook, hook && !metaHook, agent);
	}

	private static boolean mayBeContainer(Class<? extends Annotation> type) {
		try {
			Class<?> value = type.getDeclaredMethod("value").getReturnType();
			return value.isArray() && value.getComponentType().isAnnotation();
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
		catch (RuntimeException | LinkageError ex) {
			// cannot tell: let the search look inside
			return true;
		}
	}

	/**
	 * What methods the type-hierarchy search compares with a method ends up among: those
	 * of the same name and number of parameters.
	 */
	private static String signature(Method method) {
		return method.getName() + "/" + method.getParameterCount();
	}

	/**
	 * What an annotation type can stand for.
	 *
	 * @param hook whether it is or carries a hook annotation
	 * @param direct whether it is a hook annotation that carries no other
	 * @param agent whether it is or carries {@code @ForAgent}
	 */
	private record Relevance(boolean hook, boolean direct, boolean agent) {
	}

	/**
	 * A method of the hierarchy that declares hook-relevant annotations.
	 *
	 * @param method the method
	 * @param direct its hook annotation when it declares exactly one hook-relevant
	 * annotation and that is a hook annotation itself, else {@code null}
	 */
	private record Annotated(Method method, @Nullable Annotation direct) {
	}

	/**
	 * A method as {@link #learn(Class)} found it.
	 *
	 * @param annotated the method and its direct hook annotation
	 * @param sameSignature every method of the hierarchy with its name and number of
	 * parameters that declares hook-relevant annotations, itself included
	 */
	private record Listed(Annotated annotated, List<Annotated> sameSignature) {
	}

	/**
	 * What the declared annotations of a class's type hierarchy say.
	 *
	 * @param hookMethods the methods with hook-relevant annotations, by name and number
	 * of parameters
	 * @param inOrder the same methods in the order they were found (for a class directly
	 * below {@code Object} with no interfaces: declaration order)
	 * @param agentMethods the names and numbers of parameters of methods with
	 * {@code @ForAgent}-relevant annotations
	 * @param agentOnTypes whether a class or interface of the hierarchy declares a
	 * {@code @ForAgent}-relevant annotation
	 */
	private record Facts(Map<String, List<Annotated>> hookMethods, List<Listed> inOrder, Set<String> agentMethods,
			boolean agentOnTypes) {

		/** A hierarchy that could not be looked at: every method is searched. */
		static final Facts UNKNOWN = new Facts(Map.of(), List.of(), Set.of(), true);

	}

}
