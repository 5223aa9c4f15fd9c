package io.mantlehooks.ai;

import io.micrometer.context.ContextRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The turn running on this thread, for code that Spring AI calls without the advisor
 * context (vector stores, retrievers, tools). Registered with Micrometer's context
 * registry, so context-propagating executors (RAG's retrieval executor, the hook
 * executor) carry it to their threads.
 */
final class CurrentTurn {

	/** The context-propagation key. */
	static final String KEY = "mantle.current_turn";

	private static final ThreadLocal<TurnState> HOLDER = new ThreadLocal<>();

	static {
		ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, HOLDER::get, HOLDER::set, HOLDER::remove);
	}

	private CurrentTurn() {
	}

	static @Nullable TurnState get() {
		return HOLDER.get();
	}

	/**
	 * Make the turn current on this thread until the returned scope is closed.
	 */
	static Scope open(TurnState state) {
		TurnState previous = HOLDER.get();
		HOLDER.set(state);
		return () -> {
			if (previous != null) {
				HOLDER.set(previous);
			}
			else {
				HOLDER.remove();
			}
		};
	}

	/**
	 * Wrap a task so it runs with the turn that is current now, on whatever thread runs
	 * it; used for Reactor's schedulers, where Spring AI's advisors hop threads.
	 */
	static Runnable carry(Runnable task) {
		TurnState state = HOLDER.get();
		if (state == null) {
			return task;
		}
		return () -> {
			try (Scope scope = open(state)) {
				task.run();
			}
		};
	}

	/**
	 * A current-turn scope; closing it restores what was current before.
	 */
	interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
