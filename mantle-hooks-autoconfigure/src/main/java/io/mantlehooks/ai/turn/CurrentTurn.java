package io.mantlehooks.ai.turn;

import io.micrometer.context.ContextRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The turn running on this thread, for code that Spring AI calls without the advisor
 * context (vector stores, retrievers, tools, the chat model). Registered with
 * Micrometer's context registry under {@link #KEY}, so context-propagating executors
 * (RAG's retrieval executor) carry it to their threads, and Reactor restores it from a
 * subscriber's context when automatic context propagation is on.
 */
public final class CurrentTurn {

	/** The context-propagation key: a thread-local accessor and a Reactor context key. */
	public static final String KEY = "mantle.current_turn";

	private static final ThreadLocal<Turn> HOLDER = new ThreadLocal<>();

	static {
		ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, HOLDER::get, HOLDER::set, HOLDER::remove);
	}

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
	 * Wrap a task so it runs with the turn that is current now, on whatever thread runs
	 * it.
	 * @param task the task
	 * @return the wrapped task, or the task itself outside a turn
	 */
	static Runnable carry(Runnable task) {
		Turn turn = HOLDER.get();
		if (turn == null) {
			return task;
		}
		return () -> {
			try (Scope scope = open(turn)) {
				task.run();
			}
		};
	}

	/**
	 * A current-turn scope; closing it restores what was current before.
	 */
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
