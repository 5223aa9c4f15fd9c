package io.mantlehooks.runtime.discovery;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookProblem;
import io.mantlehooks.HookSignal;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.InvocationStyle;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;

/**
 * Checks hook methods against the rules of their point and lane: one parameter of the
 * point's payload type, an allowed return type, only the control signals the point
 * supports (declared or constructed), a sensible {@code timeoutMs}, and at most one
 * modify hook per point and agent.
 */
final class HookMethodValidator {

	private static final String SIGNAL_RULES = "RetryModel is allowed only in @ModifyModelResponse and @ModifyToolCall, "
			+ "HookRejection only in @ModifyIncomingMessage and @ModifyOutgoingText; observe hooks support no signal.";

	private final SignalUsageInspector signalInspector;

	HookMethodValidator() {
		this(new SignalUsageInspector());
	}

	/**
	 * Create a validator whose signal checks come from the given inspector.
	 */
	HookMethodValidator(SignalUsageInspector signalInspector) {
		this.signalInspector = signalInspector;
	}

	/**
	 * Return the response names a hook passes as literals to
	 * {@code new HookRejection(reason, name)}.
	 */
	Set<String> rejectionResponseNames(HookCandidate candidate) {
		return this.signalInspector.rejectionResponseNames(candidate.method());
	}

	/**
	 * Return the control signals a hook constructs in its code.
	 */
	Set<Class<? extends HookSignal>> constructedSignals(HookCandidate candidate) {
		return this.signalInspector.constructedSignals(candidate.method());
	}

	/**
	 * Forget what was read for the checks: validation runs once, at startup.
	 */
	void clear() {
		this.signalInspector.clear();
	}

	List<HookProblem> validate(HookCandidate candidate) {
		List<HookProblem> problems = new ArrayList<>();
		checkParameter(candidate, problems);
		checkReturnType(candidate, problems);
		checkSignals(candidate, problems);
		checkTimeout(candidate, problems);
		return problems;
	}

	List<HookProblem> checkOneModifierPerPoint(List<HookCandidate> candidates) {
		// loops, not streams: this runs once per start, before the JIT has compiled
		// anything, where each lambda's first use costs more than the loop
		Map<HookPoint, List<HookCandidate>> modifiers = new EnumMap<>(HookPoint.class);
		for (HookCandidate candidate : candidates) {
			if (candidate.lane() == HookLane.MODIFY) {
				List<HookCandidate> declared = modifiers.get(candidate.point());
				if (declared == null) {
					declared = new ArrayList<>();
					modifiers.put(candidate.point(), declared);
				}
				declared.add(candidate);
			}
		}
		List<HookProblem> problems = new ArrayList<>();
		for (Map.Entry<HookPoint, List<HookCandidate>> entry : modifiers.entrySet()) {
			HookPoint point = entry.getKey();
			List<HookCandidate> declared = entry.getValue();
			List<HookCandidate> everyAgent = inAgent(declared, null);
			if (everyAgent.size() > 1) {
				problems.add(tooManyModifiers(point, everyAgent, ""));
			}
			Set<String> agents = new LinkedHashSet<>();
			for (HookCandidate candidate : declared) {
				agents.addAll(candidate.agents());
			}
			for (String agent : agents) {
				List<HookCandidate> inAgent = inAgent(declared, agent);
				if (inAgent.size() > 1) {
					problems.add(tooManyModifiers(point, inAgent, agent));
				}
			}
		}
		return problems;
	}

	/**
	 * The hooks that run in an agent's turns: those without {@code @ForAgent} and, for a
	 * named agent, those that name it.
	 */
	private static List<HookCandidate> inAgent(List<HookCandidate> declared, @Nullable String agent) {
		List<HookCandidate> found = new ArrayList<>(declared.size());
		for (HookCandidate candidate : declared) {
			if (candidate.agents().isEmpty() || (agent != null && candidate.agents().contains(agent))) {
				found.add(candidate);
			}
		}
		return found;
	}

	private static HookProblem tooManyModifiers(HookPoint point, List<HookCandidate> declared, String agent) {
		String annotation = "@" + declared.get(0).annotationType().getSimpleName();
		String observe = "@" + point.observeAnnotation().getSimpleName();
		if (agent.isEmpty()) {
			return new HookProblem(
					"Point " + point.configName() + " has " + declared.size()
							+ " modify hooks, but at most one is allowed: "
							+ declared.stream().map(HookCandidate::describe).collect(Collectors.joining(" and ")) + ".",
					"Keep one " + annotation + " method and merge the other logic into it, or make the others observe "
							+ "hooks (" + observe + "), or scope them to different agents with @ForAgent.");
		}
		return new HookProblem(
				"Point " + point.configName() + " has " + declared.size() + " modify hooks in agent '" + agent
						+ "', but at most one per agent is allowed (a modify hook without @ForAgent counts in every "
						+ "agent): "
						+ declared.stream().map(HookCandidate::describe).collect(Collectors.joining(" and ")) + ".",
				"Keep one " + annotation + " method for agent '" + agent + "': merge the other logic into it, scope "
						+ "the hook without @ForAgent to the other agents, or make the others observe hooks (" + observe
						+ ").");
	}

	private void checkParameter(HookCandidate candidate, List<HookProblem> problems) {
		Class<?> payloadType = candidate.point().payloadType();
		Class<?>[] parameterTypes = candidate.method().getParameterTypes();
		if (parameterTypes.length != 1 || parameterTypes[0] != payloadType) {
			String found = Arrays.stream(parameterTypes).map(Class::getSimpleName).collect(Collectors.joining(", "));
			problems.add(new HookProblem(
					candidate.describe() + " must take exactly one parameter of type " + payloadType.getSimpleName()
							+ ", but takes (" + found + ").",
					"Declare the method with a single " + payloadType.getSimpleName() + " parameter, for example '"
							+ expectedSignature(candidate) + "'."));
		}
	}

	private void checkReturnType(HookCandidate candidate, List<HookProblem> problems) {
		Class<?> expected = (candidate.lane() == HookLane.MODIFY) ? candidate.point().payloadType() : Void.class;
		Method method = candidate.method();
		Class<?> returnType = method.getReturnType();
		boolean valid;
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			valid = typeArgument(method, CompletionStage.class) == expected;
		}
		else if (InvocationStyle.isMono(returnType)) {
			valid = typeArgument(method, InvocationStyle.monoType()) == expected;
		}
		else if (candidate.lane() == HookLane.MODIFY) {
			valid = returnType == expected;
		}
		else {
			valid = returnType == void.class;
		}
		if (!valid) {
			String allowed = (candidate.lane() == HookLane.MODIFY) ? expected.getSimpleName() + ", CompletionStage<"
					+ expected.getSimpleName() + "> or Mono<" + expected.getSimpleName() + ">"
					: "void, CompletionStage<Void> or Mono<Void>";
			String action = (candidate.lane() == HookLane.MODIFY)
					? "Return the payload, rewritten with its with... methods, for example '"
							+ expectedSignature(candidate) + "'."
					: "Make the method return void (observe hooks cannot change the turn), for example '"
							+ expectedSignature(candidate) + "'.";
			problems
				.add(new HookProblem(candidate.describe() + " returns " + method.getGenericReturnType().getTypeName()
						+ ", but " + ((candidate.lane() == HookLane.MODIFY) ? "a modify" : "an observe")
						+ " hook must return " + allowed + ".", action));
		}
	}

	private static @Nullable Class<?> typeArgument(Method method, Class<?> genericType) {
		return ResolvableType.forMethodReturnType(method).as(genericType).getGeneric(0).resolve();
	}

	private void checkSignals(HookCandidate candidate, List<HookProblem> problems) {
		Set<String> unsupported = new LinkedHashSet<>();
		for (Class<?> declared : candidate.method().getExceptionTypes()) {
			if (HookSignal.class.isAssignableFrom(declared) && !allowed(candidate, declared)) {
				unsupported.add(declared.getSimpleName() + " (declared in its throws clause)");
			}
		}
		for (Class<? extends HookSignal> constructed : this.signalInspector.constructedSignals(candidate.method())) {
			if (!allowed(candidate, constructed)) {
				unsupported.add(constructed.getSimpleName() + " (constructed in its body)");
			}
		}
		if (!unsupported.isEmpty()) {
			String supported = (candidate.lane() == HookLane.OBSERVE) ? "observe hooks support no control signal"
					: candidate.point().allowedSignals().isEmpty()
							? candidate.point().configName() + " hooks support no control signal"
							: candidate.point().configName() + " hooks support only "
									+ candidate.point()
										.allowedSignals()
										.stream()
										.map(Class::getSimpleName)
										.sorted()
										.collect(Collectors.joining(", "));
			problems.add(new HookProblem(
					candidate.describe() + " throws " + String.join(" and ", unsupported) + ", but " + supported + ".",
					"Remove the unsupported signal from the method. " + SIGNAL_RULES));
		}
	}

	private static boolean allowed(HookCandidate candidate, Class<?> signalType) {
		if (candidate.lane() == HookLane.OBSERVE) {
			return false;
		}
		if (signalType == HookSignal.class) {
			return !candidate.point().allowedSignals().isEmpty();
		}
		return candidate.point().allowedSignals().contains(signalType);
	}

	private void checkTimeout(HookCandidate candidate, List<HookProblem> problems) {
		long timeoutMs = candidate.annotationTimeoutMs();
		if (timeoutMs != -1 && timeoutMs <= 0) {
			problems.add(new HookProblem(
					candidate.describe() + " declares timeoutMs = " + timeoutMs + ", but a timeout must be positive.",
					"Use a positive number of milliseconds, or -1 (the default) to use mantle.hooks.timeouts.*."));
		}
	}

	private static String expectedSignature(HookCandidate candidate) {
		String payload = candidate.point().payloadType().getSimpleName();
		String returned = (candidate.lane() == HookLane.MODIFY) ? payload : "void";
		return returned + " " + candidate.method().getName() + "(" + payload + " payload)";
	}

}
