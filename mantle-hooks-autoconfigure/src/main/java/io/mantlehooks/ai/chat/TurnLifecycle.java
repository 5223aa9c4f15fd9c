package io.mantlehooks.ai.chat;

import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.HookPoint;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.execution.HookRunner;

/**
 * Fires a turn's started and finished observers as a matching pair, exactly once each,
 * whatever the moment a stream is cancelled or fails: a turn that never started never
 * finishes, and a started turn finishes once.
 */
final class TurnLifecycle {

	private static final int NEW = 0;

	private static final int STARTED = 1;

	private static final int ENDED = 2;

	private final HookRunner hooks;

	private final Turn turn;

	private final AtomicInteger state = new AtomicInteger(NEW);

	TurnLifecycle(HookRunner hooks, Turn turn) {
		this.hooks = hooks;
		this.turn = turn;
	}

	/**
	 * Start the turn.
	 * @return {@code false} when the turn already ended (cancelled before it started)
	 */
	boolean start() {
		if (!this.state.compareAndSet(NEW, STARTED)) {
			return false;
		}
		if (this.hooks.hasObservers(HookPoint.TURN_STARTED, this.turn.scope())) {
			this.hooks.observe(HookPoint.TURN_STARTED, this.turn.turnStarted(), this.turn.scope());
		}
		return true;
	}

	/**
	 * End the turn; fires the finished observers when it had started.
	 * @param status how it ended
	 */
	void end(TurnStatus status) {
		if (this.state.getAndSet(ENDED) == STARTED
				&& this.hooks.hasObservers(HookPoint.TURN_FINISHED, this.turn.scope())) {
			this.hooks.observe(HookPoint.TURN_FINISHED, this.turn.turnFinished(status), this.turn.scope());
		}
	}

}
