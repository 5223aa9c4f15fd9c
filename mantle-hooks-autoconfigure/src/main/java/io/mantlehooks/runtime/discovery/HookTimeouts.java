package io.mantlehooks.runtime.discovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookProblem;
import io.mantlehooks.runtime.ConfigurationKeys;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.runtime.TimeoutSource;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.Assert;

/**
 * Resolves the timeout of each hook. Precedence: the per-hook entry
 * ({@code timeouts.hook}), then the annotation's {@code timeoutMs}, then the per-point
 * modify default ({@code timeouts.point}), then the lane default
 * ({@code timeouts.observe} or {@code timeouts.modify}).
 */
public final class HookTimeouts {

	private final Duration observe;

	private final Duration modify;

	private final Map<HookPoint, Duration> perPoint;

	private final Map<String, Duration> perHook;

	private final Map<String, String> perHookKeys;

	private final Map<String, String> unparsable;

	/**
	 * Create the resolver.
	 * @param observe the observe lane default
	 * @param modify the modify lane default
	 * @param perPoint modify defaults per point
	 * @param perHook timeouts per hook, keyed {@code beanName.methodName}, in Spring
	 * Boot's duration formats ({@code 2s}, {@code 750ms}, {@code PT2S}, or plain
	 * milliseconds)
	 */
	public HookTimeouts(Duration observe, Duration modify, Map<HookPoint, Duration> perPoint,
			Map<String, String> perHook) {
		Assert.notNull(observe, "'observe' must not be null");
		Assert.notNull(modify, "'modify' must not be null");
		this.observe = observe;
		this.modify = modify;
		this.perPoint = perPoint.isEmpty() ? Map.of() : new EnumMap<>(perPoint);
		this.perHook = new LinkedHashMap<>();
		this.perHookKeys = new LinkedHashMap<>();
		this.unparsable = new LinkedHashMap<>();
		perHook.forEach((key, value) -> {
			String normalized = ConfigurationKeys.normalize(key);
			this.perHookKeys.put(normalized, key);
			try {
				this.perHook.put(normalized, DurationStyle.detectAndParse(value.trim()));
			}
			catch (IllegalArgumentException ex) {
				this.unparsable.put(key, value);
			}
		});
	}

	/**
	 * Check the configured durations: every one must be positive.
	 * @param prefix the configuration prefix, for messages
	 * @return the problems found
	 */
	List<HookProblem> validate(String prefix) {
		Map<String, @Nullable Duration> all = new LinkedHashMap<>();
		all.put(prefix + ".observe", this.observe);
		all.put(prefix + ".modify", this.modify);
		this.perPoint.forEach((point, timeout) -> all.put(prefix + ".point." + point.configName(), timeout));
		this.perHook.forEach((key, timeout) -> all.put(prefix + ".hook[" + this.perHookKeys.get(key) + "]", timeout));
		List<HookProblem> problems = new ArrayList<>();
		this.unparsable.forEach((key,
				value) -> problems.add(new HookProblem(
						"Property '" + prefix + ".hook[" + key + "]' is '" + value + "', which is not a duration.",
						"Set '" + prefix + ".hook[" + key + "]' to a duration such as 2s or 750ms.")));
		all.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() == null || entry.getValue().isNegative() || entry.getValue().isZero())
			.map((entry) -> new HookProblem(
					"Property '" + entry.getKey() + "' is " + entry.getValue()
							+ ", but a hook timeout must be positive.",
					"Set '" + entry.getKey() + "' to a positive duration such as 500ms, or remove it."))
			.forEach(problems::add);
		return problems;
	}

	/**
	 * Resolve the timeout of one hook.
	 * @param hookName {@code beanName.methodName}
	 * @param point the hook's point
	 * @param lane the hook's lane
	 * @param annotationTimeoutMs the annotation's {@code timeoutMs}, {@code -1} for none
	 * @return the timeout and where it came from
	 */
	Resolved resolve(String hookName, HookPoint point, HookLane lane, long annotationTimeoutMs) {
		// no per-hook keys (the common case): nothing to normalize for each of many hooks
		Duration configured = this.perHook.isEmpty() ? null : this.perHook.get(ConfigurationKeys.normalize(hookName));
		if (configured != null) {
			return new Resolved(configured, TimeoutSource.HOOK);
		}
		if (annotationTimeoutMs > 0) {
			return new Resolved(Duration.ofMillis(annotationTimeoutMs), TimeoutSource.ANNOTATION);
		}
		if (lane == HookLane.OBSERVE) {
			return new Resolved(this.observe, TimeoutSource.LANE);
		}
		Duration perPoint = this.perPoint.get(point);
		return (perPoint != null) ? new Resolved(perPoint, TimeoutSource.POINT)
				: new Resolved(this.modify, TimeoutSource.LANE);
	}

	/**
	 * Return the points configured in {@code timeouts.point} that have no modify lane,
	 * where such an entry can never apply.
	 * @return the points, in configuration order
	 */
	List<HookPoint> pointsWithoutModifyLane() {
		return this.perPoint.keySet().stream().filter((point) -> point.modifyAnnotation() == null).toList();
	}

	/**
	 * Return the configured per-hook keys that match none of the given hooks.
	 * @param hookNames the names of the discovered hooks
	 * @return the unmatched keys, as configured
	 */
	List<String> unmatchedHookKeys(Set<String> hookNames) {
		if (this.perHookKeys.isEmpty()) {
			return List.of();
		}
		Set<String> known = new HashSet<>();
		hookNames.forEach((name) -> known.add(ConfigurationKeys.normalize(name)));
		return this.perHookKeys.entrySet()
			.stream()
			.filter((entry) -> !known.contains(entry.getKey()))
			.map(Map.Entry::getValue)
			.toList();
	}

	/**
	 * A hook's timeout and where it came from.
	 *
	 * @param timeout the timeout
	 * @param source where it came from
	 */
	record Resolved(Duration timeout, TimeoutSource source) {
	}

}
