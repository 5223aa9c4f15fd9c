package io.mantlehooks.ai.turn;

import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * The turn running on this thread, for code that Spring AI calls without the advisor
 * context (vector stores, retrievers, tools, the chat model, a model call made from a
 * hook). While an application has hooks, {@link CurrentTurnPropagation} registers it with
 * Micrometer's context registry under {@link #KEY}, so context-propagating executors
 * (RAG's retrieval executor) carry it to their threads, and Reactor restores it from a
 * subscriber's context when automatic context propagation is on.
 */
public final class CurrentTurn {

	/** The context-propagation key: a thread-local accessor and a Reactor context key. */
	public static final String KEY = "mantle.current_turn";

	/**
	 * A {@link Turn}, or an {@link InsideHook} that becomes one only when asked: a hook
	 * thread makes its turn current for every invocation, and most hooks never ask.
	 */
	private static final ThreadLocal<Object> HOLDER = new ThreadLocal<>();

	private CurrentTurn() {
	}

	/**
	 * Return the turn current on this thread.
	 * @return the turn, or {@code null} outside a turn
	 */
	public static @Nullable Turn get() {
		Object current = HOLDER.get();
		if (current instanceof InsideHook inside) {
			Turn resolved = inside.turn().insideHook(inside.hookName());
			HOLDER.set(resolved);
			return resolved;
		}
		return (Turn) current;
	}

	/**
	 * Make the turn current on this thread until the returned scope is closed.
	 * @param turn the turn
	 * @return the scope; closing it restores what was current before
	 */
	public static Scope open(Turn turn) {
		return replace(turn);
	}

	/**
	 * Make current, until the returned scope is closed, the turn that a call made from
	 * inside one of the turn's hooks belongs to ({@link Turn#insideHook}); it is created
	 * only if something on the thread asks for the current turn.
	 * @param turn the turn whose hook runs
	 * @param hookName the hook
	 * @return the scope; closing it restores what was current before
	 */
	static Scope openInside(Turn turn, String hookName) {
		return replace(new InsideHook(turn, hookName));
	}

	private static Scope replace(Object current) {
		Object previous = HOLDER.get();
		HOLDER.set(current);
		// set, never remove: a removed thread-local allocates its entry again on the next
		// get, and stream threads ask for the turn on every chunk
		return () -> HOLDER.set(previous);
	}

	/**
	 * Register the current turn with a context registry, under {@link #KEY}, for one more
	 * application: applications of one JVM share the registration, which counts them
	 * itself.
	 * @param registry the registry
	 */
	static void registerWith(ContextRegistry registry) {
		synchronized (registry) {
			if (accessorIn(registry) instanceof Accessor accessor) {
				accessor.users.incrementAndGet();
				return;
			}
			registry.registerThreadLocalAccessor(new Accessor());
		}
	}

	/**
	 * Undo one {@link #registerWith}: the last application to leave removes the
	 * registration.
	 * @param registry the registry
	 */
	static void unregisterFrom(ContextRegistry registry) {
		synchronized (registry) {
			if (accessorIn(registry) instanceof Accessor accessor && accessor.users.decrementAndGet() == 0) {
				registry.removeThreadLocalAccessor(KEY);
			}
		}
	}

	private static @Nullable ThreadLocalAccessor<?> accessorIn(ContextRegistry registry) {
		for (ThreadLocalAccessor<?> accessor : registry.getThreadLocalAccessors()) {
			if (KEY.equals(accessor.key())) {
				return accessor;
			}
		}
		return null;
	}

	/**
	 * The current turn as a thread-local accessor, with the number of applications that
	 * registered it.
	 */
	private static final class Accessor implements ThreadLocalAccessor<Turn> {

		private final AtomicInteger users = new AtomicInteger(1);

		@Override
		public Object key() {
			return KEY;
		}

		@Override
		public @Nullable Turn getValue() {
			return get();
		}

		@Override
		public void setValue(Turn value) {
			HOLDER.set(value);
		}

		@Override
		public void setValue() {
			HOLDER.set(null);
		}

	}

	private record InsideHook(Turn turn, String hookName) {
	}

	/**
	 * A current-turn scope; closing it restores what was current before.
	 */
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
