package io.mantlehooks.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The hooks of the application, per agent and point: in each agent at most one modify
 * hook and any number of observe hooks per point. A hook without
 * {@link io.mantlehooks.annotation.ForAgent} belongs to every agent; an agent no hook
 * names runs those hooks only. Filled once, after all singletons are instantiated; empty
 * until then.
 */
public final class HookRegistry {

	private static final Log logger = LogFactory.getLog(HookRegistry.class);

	/** How many unknown agent names are remembered (and logged) at most. */
	private static final int MAX_UNKNOWN_AGENTS_LOGGED = 256;

	private static final HookPoint[] POINTS = HookPoint.values();

	private volatile HookSet everyAgent = new HookSet(null, List.of());

	private volatile Map<String, HookSet> agents = Map.of();

	private volatile List<HookMethod> all = List.of();

	private volatile boolean installed;

	private volatile Set<HookPoint> pointsWithHooks = Set.of();

	private final Set<String> unknownAgentsLogged = ConcurrentHashMap.newKeySet();

	private final List<Consumer<HookRegistry>> installListeners = new CopyOnWriteArrayList<>();

	/**
	 * Install the discovered hooks. May be called once; install listeners run afterwards,
	 * and what they throw fails the installation.
	 * @param discovered the validated hooks
	 */
	public void install(List<HookMethod> discovered) {
		Assert.state(!this.installed, "Hooks have already been installed");
		Set<String> named = new LinkedHashSet<>();
		discovered.forEach((hook) -> named.addAll(hook.agents()));
		// sorted: the startup log and the endpoint list agents in the same order
		Map<String, HookSet> sets = new TreeMap<>();
		for (String agent : named) {
			sets.put(agent, new HookSet(agent, discovered));
		}
		HookSet unnamed = new HookSet(null, discovered);
		Set<HookPoint> points = EnumSet.noneOf(HookPoint.class);
		discovered.forEach((hook) -> points.add(hook.point()));
		List<HookMethod> ordered = new ArrayList<>(discovered);
		// modify hooks first, then observers, each in point order
		ordered.sort((left, right) -> (left.lane() != right.lane()) ? ((left.lane() == HookLane.MODIFY) ? -1 : 1)
				: left.point().compareTo(right.point()));
		this.agents = Collections.unmodifiableMap(sets);
		this.everyAgent = unnamed;
		this.all = List.copyOf(ordered);
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
	 * Return the hooks that run in turns of an agent. An agent no hook names runs the
	 * hooks that belong to every agent; the first turn of each such name is logged at
	 * INFO, so a typo shows.
	 * @param agent the agent's name
	 * @return the agent's hooks
	 */
	public HookSet forAgent(String agent) {
		HookSet set = this.agents.get(agent);
		if (set != null) {
			return set;
		}
		if (this.installed && !MantleHooks.DEFAULT_AGENT.equals(agent)) {
			logUnknown(agent);
		}
		return this.everyAgent;
	}

	/**
	 * Return the hooks without {@link io.mantlehooks.annotation.ForAgent}: what an agent
	 * no hook names runs.
	 * @return the hooks of every agent
	 */
	public HookSet everyAgent() {
		return this.everyAgent;
	}

	/**
	 * Return the agents that hooks name in {@link io.mantlehooks.annotation.ForAgent}.
	 * @return the agents' names, empty when every hook belongs to every agent
	 */
	public Set<String> agents() {
		return this.agents.keySet();
	}

	/**
	 * Return the points that have at least one hook, in any agent.
	 * @return the points, empty before installation or when the application has none
	 */
	public Set<HookPoint> pointsWithHooks() {
		return this.pointsWithHooks;
	}

	/**
	 * Return every installed hook, of every agent, modify hooks first, in point order.
	 * @return the hooks
	 */
	public List<HookMethod> hooks() {
		return this.all;
	}

	private void logUnknown(String agent) {
		if (this.unknownAgentsLogged.size() < MAX_UNKNOWN_AGENTS_LOGGED && this.unknownAgentsLogged.add(agent)) {
			logger.info("Agent '" + agent + "' is named by a ChatClient but by no @ForAgent hook: its turns run "
					+ "the hooks of every agent only" + (this.agents.isEmpty() ? ""
							: " (hooks name the agents " + new ArrayList<>(this.agents.keySet()) + ")"));
		}
	}

	/**
	 * The hooks of one agent, per point: at most one modify hook and any number of
	 * observers. Immutable.
	 */
	public static final class HookSet {

		private final @Nullable String agent;

		private final @Nullable HookMethod[] modifiers = new HookMethod[POINTS.length];

		private final List<HookMethod>[] observers;

		@SuppressWarnings("unchecked")
		HookSet(@Nullable String agent, List<HookMethod> discovered) {
			this.agent = agent;
			List<HookMethod>[] found = new List[POINTS.length];
			Arrays.setAll(found, (index) -> new ArrayList<>());
			for (HookMethod hook : discovered) {
				// the set of every agent holds only the hooks without @ForAgent
				if (!((agent != null) ? hook.belongsTo(agent) : hook.agents().isEmpty())) {
					continue;
				}
				int index = hook.point().ordinal();
				if (hook.lane() == HookLane.MODIFY) {
					if (this.modifiers[index] != null) {
						throw new IllegalStateException(
								"Two modify hooks for " + hook.point().configName() + " in agent " + agent());
					}
					this.modifiers[index] = hook;
				}
				else {
					found[index].add(hook);
				}
			}
			Arrays.setAll(found, (index) -> List.copyOf(found[index]));
			this.observers = found;
		}

		/**
		 * Return the agent these hooks are the set of.
		 * @return the agent's name; {@code *} for the hooks of every agent, which is what
		 * agents no hook names run
		 */
		public String agent() {
			return (this.agent != null) ? this.agent : "*";
		}

		/**
		 * Return the modify hook of a point.
		 * @param point the point
		 * @return the modify hook, or {@code null} when the point has none
		 */
		public @Nullable HookMethod modifier(HookPoint point) {
			return this.modifiers[point.ordinal()];
		}

		/**
		 * Return the observe hooks of a point.
		 * @param point the point
		 * @return the observers, possibly empty
		 */
		public List<HookMethod> observers(HookPoint point) {
			return this.observers[point.ordinal()];
		}

		/**
		 * Return whether a point has any hook. Callers check this before they build a
		 * payload, so a point without hooks costs nothing more.
		 * @param point the point
		 * @return whether the point has a modify hook or an observer
		 */
		public boolean hasHooks(HookPoint point) {
			return this.modifiers[point.ordinal()] != null || !this.observers[point.ordinal()].isEmpty();
		}

		/**
		 * Return whether a point has a modify hook.
		 * @param point the point
		 * @return whether a modify hook is registered
		 */
		public boolean hasModifier(HookPoint point) {
			return this.modifiers[point.ordinal()] != null;
		}

		/**
		 * Return whether a point has observers.
		 * @param point the point
		 * @return whether an observe hook is registered
		 */
		public boolean hasObservers(HookPoint point) {
			return !this.observers[point.ordinal()].isEmpty();
		}

		/**
		 * Return every hook of the agent, modify hooks first, in point order.
		 * @return the hooks
		 */
		public List<HookMethod> hooks() {
			List<HookMethod> hooks = new ArrayList<>();
			for (HookMethod modifier : this.modifiers) {
				if (modifier != null) {
					hooks.add(modifier);
				}
			}
			for (List<HookMethod> pointObservers : this.observers) {
				hooks.addAll(pointObservers);
			}
			return hooks;
		}

	}

}
