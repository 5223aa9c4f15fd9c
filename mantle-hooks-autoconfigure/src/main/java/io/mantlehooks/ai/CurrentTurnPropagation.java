package io.mantlehooks.ai;

import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * Carries the current turn across Reactor's schedulers, where Spring AI's advisors hop
 * threads when streaming, so a vector-store search inside a streamed turn still knows
 * whose turn it is. A scheduled task captures the turn current when it was scheduled; a
 * task scheduled outside any turn is left as it is.
 */
public final class CurrentTurnPropagation implements InitializingBean, DisposableBean {

	private static final String HOOK_KEY = "mantle-hooks-current-turn";

	/**
	 * Subscribe to the flux with the turn current, so the tasks that the subscription
	 * schedules right away (Spring AI's advisors publish on their schedulers) carry it.
	 */
	static <T> Flux<T> subscribeWithin(TurnState state, Flux<T> flux) {
		return Flux.from((subscriber) -> {
			try (CurrentTurn.Scope scope = CurrentTurn.open(state)) {
				flux.subscribe(subscriber);
			}
		});
	}

	/** The hook is global to Reactor: several application contexts share one. */
	private static final AtomicInteger USERS = new AtomicInteger();

	@Override
	public void afterPropertiesSet() {
		if (USERS.getAndIncrement() == 0) {
			Schedulers.onScheduleHook(HOOK_KEY, CurrentTurn::carry);
		}
	}

	@Override
	public void destroy() {
		if (USERS.decrementAndGet() == 0) {
			Schedulers.resetOnScheduleHook(HOOK_KEY);
		}
	}

}
