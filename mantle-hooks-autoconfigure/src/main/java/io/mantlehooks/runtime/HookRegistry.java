package io.mantlehooks.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

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

	private volatile boolean installed;

	private volatile Set<HookPoint> pointsWithHooks = Set.of();

	private final List<Consumer<HookRegistry>> installListeners = new CopyOnWriteArrayList<>();

	/**
	 * Install the discovered hooks. May be called once; install listeners run afterwards,
	 * and what they throw fails the installation.
	 * @param discovered the validated hooks
	 */
	void install(List<HookMethod> discovered) {
		Assert.state(!this.installed, "Hooks have already been installed");
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
		PointHooks[] installedHooks = new PointHooks[POINTS.length];
		Set<HookPoint> points = EnumSet.noneOf(HookPoint.class);
		for (HookPoint point : POINTS) {
			PointHooks pointHooks = new PointHooks(modifiers.get(point),
					List.copyOf(observers.getOrDefault(point, List.of())));
			installedHooks[point.ordinal()] = pointHooks;
			if (pointHooks.modifier() != null || !pointHooks.observers().isEmpty()) {
				points.add(point);
			}
		}
		this.hooks = installedHooks;
		this.pointsWithHooks = Set.copyOf(points);
		this.installed = true;
		this.installListeners.forEach((listener) -> listener.accept(this));
	}

	/**
	 * Run the listener once the hooks are installed (right away when they already are).
	 * An exception it throws fails startup.
	 * @param listener the listener
	 */
	public void onInstall(Consumer<HookRegistry> listener) {
		Assert.notNull(listener, "'listener' must not be null");
		if (this.installed) {
			listener.accept(this);
		}
		else {
			this.installListeners.add(listener);
		}
	}

	/**
	 * Return whether discovery has run and the hooks are installed.
	 * @return whether the registry is final
	 */
	public boolean isInstalled() {
		return this.installed;
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

	/**
	 * Return the points that have at least one hook.
	 * @return the points, empty before installation or when the application has none
	 */
	public Set<HookPoint> pointsWithHooks() {
		return this.pointsWithHooks;
	}

	/**
	 * Return every installed hook, modify hooks first, in point order.
	 * @return the hooks
	 */
	public List<HookMethod> hooks() {
		List<HookMethod> all = new ArrayList<>();
		for (PointHooks pointHooks : this.hooks) {
			if (pointHooks.modifier() != null) {
				all.add(pointHooks.modifier());
			}
		}
		for (PointHooks pointHooks : this.hooks) {
			all.addAll(pointHooks.observers());
		}
		return all;
	}

	private static PointHooks[] emptyHooks() {
		PointHooks[] empty = new PointHooks[POINTS.length];
		Arrays.fill(empty, new PointHooks(null, List.of()));
		return empty;
	}

	private record PointHooks(@Nullable HookMethod modifier, List<HookMethod> observers) {
	}

}
