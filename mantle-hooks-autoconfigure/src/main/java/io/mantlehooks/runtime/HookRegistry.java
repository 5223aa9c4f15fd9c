package io.mantlehooks.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPoint;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The hooks of the application, per point: at most one modify hook and any number of
 * observe hooks. Filled once, after all singletons are instantiated; empty until then.
 */
public final class HookRegistry {

	private static final HookPoint[] POINTS = HookPoint.values();

	private static final PointHooks[] EMPTY = emptyHooks();

	private volatile PointHooks[] hooks = EMPTY;

	/**
	 * Install the discovered hooks. May be called once.
	 * @param discovered the validated hooks
	 */
	void install(List<HookMethod> discovered) {
		Assert.state(this.hooks == EMPTY, "Hooks have already been installed");
		Map<HookPoint, List<HookMethod>> observers = new EnumMap<>(HookPoint.class);
		Map<HookPoint, HookMethod> modifiers = new EnumMap<>(HookPoint.class);
		for (HookMethod hook : discovered) {
			if (hook.lane() == HookLane.MODIFY) {
				HookMethod previous = modifiers.put(hook.point(), hook);
				Assert.state(previous == null, () -> "Two modify hooks for " + hook.point().configName());
			}
			else {
				observers.computeIfAbsent(hook.point(), (point) -> new ArrayList<>()).add(hook);
			}
		}
		PointHooks[] installed = new PointHooks[POINTS.length];
		for (HookPoint point : POINTS) {
			installed[point.ordinal()] = new PointHooks(modifiers.get(point),
					List.copyOf(observers.getOrDefault(point, List.of())));
		}
		this.hooks = installed;
	}

	/**
	 * Return the modify hook of a point.
	 * @param point the point
	 * @return the modify hook, or {@code null} when the point has none
	 */
	public @Nullable HookMethod modifier(HookPoint point) {
		return this.hooks[point.ordinal()].modifier();
	}

	/**
	 * Return the observe hooks of a point.
	 * @param point the point
	 * @return the observers, possibly empty
	 */
	public List<HookMethod> observers(HookPoint point) {
		return this.hooks[point.ordinal()].observers();
	}

	/**
	 * Return whether a point has any hook. Callers check this before they build a
	 * payload, so a point without hooks costs nothing more.
	 * @param point the point
	 * @return whether the point has a modify hook or an observer
	 */
	public boolean hasHooks(HookPoint point) {
		PointHooks pointHooks = this.hooks[point.ordinal()];
		return pointHooks.modifier() != null || !pointHooks.observers().isEmpty();
	}

	/**
	 * Return whether a point has a modify hook.
	 * @param point the point
	 * @return whether a modify hook is registered
	 */
	public boolean hasModifier(HookPoint point) {
		return modifier(point) != null;
	}

	private static PointHooks[] emptyHooks() {
		PointHooks[] empty = new PointHooks[POINTS.length];
		Arrays.fill(empty, new PointHooks(null, List.of()));
		return empty;
	}

	private record PointHooks(@Nullable HookMethod modifier, List<HookMethod> observers) {
	}

}
