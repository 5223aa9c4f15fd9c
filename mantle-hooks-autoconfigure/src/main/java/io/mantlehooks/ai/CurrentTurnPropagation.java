package io.mantlehooks.ai;

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

	@Override
	public void afterPropertiesSet() {
		Schedulers.onScheduleHook(HOOK_KEY, CurrentTurn::carry);
	}

	@Override
	public void destroy() {
		Schedulers.resetOnScheduleHook(HOOK_KEY);
	}

}
