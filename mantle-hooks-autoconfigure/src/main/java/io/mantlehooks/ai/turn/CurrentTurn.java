package io.mantlehooks.ai.turn;

import io.micrometer.context.ContextRegistry;
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

	private static final ThreadLocal<Turn> HOLDER = new ThreadLocal<>();

	private CurrentTurn() {
	}

	/**
	 * Return the turn current on this thread.
	 * @return the turn, or {@code null} outside a turn
	 */
	public static @Nullable Turn get() {
		return HOLDER.get();
	}

	/**
	 * Make the turn current on this thread until the returned scope is closed.
	 * @param turn the turn
	 * @return the scope; closing it restores what was current before
	 */
	public static Scope open(Turn turn) {
		Turn previous = HOLDER.get();
		HOLDER.set(turn);
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
	 * Register the current turn with a context registry, under {@link #KEY}.
	 * @param registry the registry
	 */
	static void registerWith(ContextRegistry registry) {
		registry.registerThreadLocalAccessor(KEY, HOLDER::get, HOLDER::set, HOLDER::remove);
	}

	/**
	 * A current-turn scope; closing it restores what was current before.
	 */
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
