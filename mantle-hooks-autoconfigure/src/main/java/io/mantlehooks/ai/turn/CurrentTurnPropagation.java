package io.mantlehooks.ai.turn;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Carries the current turn through streamed turns. The turn advisor writes the turn into
 * the Reactor context ({@link #contextWrite}); with Reactor's automatic context
 * propagation on ({@code spring.reactor.context-propagation=auto}), Reactor restores it
 * as the current turn wherever a RAG advisor or tool runs.
 * <p>
 * With automatic propagation off (Spring Boot's default), nothing would restore it on the
 * schedulers that Spring AI's advisors hop to ({@code BaseAdvisor} runs {@code before()}
 * on bounded-elastic), so a {@code QuestionAnswerAdvisor} search would not know whose
 * turn it is. Only then is a Reactor schedule hook installed: a task scheduled while a
 * turn is current runs with that turn; the hook advisors subscribe each round with the
 * turn current ({@link #subscribeWithin}) so the tasks it schedules right away carry it.
 * The hook is global to Reactor, so it is installed once per JVM however many application
 * contexts use it.
 */
public final class CurrentTurnPropagation implements SmartInitializingSingleton, DisposableBean {

	private static final Log logger = LogFactory.getLog(CurrentTurnPropagation.class);

	private static final String HOOK_KEY = "mantle-hooks-current-turn";

	private static final AtomicInteger USERS = new AtomicInteger();

	private volatile boolean usesScheduleHook;

	/**
	 * Put the turn in a Reactor context, where automatic context propagation and the chat
	 * model wrapper find it.
	 * @param context the subscriber's context
	 * @param turn the turn
	 * @return the context with the turn
	 */
	public static Context contextWrite(Context context, Turn turn) {
		return context.put(CurrentTurn.KEY, turn);
	}

	/**
	 * Subscribe to the flux with the turn current on the subscribing thread, so tasks the
	 * subscription schedules right away carry it.
	 * @param <T> the element type
	 * @param turn the turn
	 * @param flux the flux
	 * @return a flux that subscribes within the turn
	 */
	public static <T> Flux<T> subscribeWithin(Turn turn, Flux<T> flux) {
		return Flux.from((subscriber) -> {
			try (CurrentTurn.Scope scope = CurrentTurn.open(turn)) {
				flux.subscribe(subscriber);
			}
		});
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (Hooks.isAutomaticContextPropagationEnabled()) {
			logger.debug("Reactor's automatic context propagation carries the current turn");
			return;
		}
		this.usesScheduleHook = true;
		if (USERS.getAndIncrement() == 0) {
			Schedulers.onScheduleHook(HOOK_KEY, CurrentTurn::carry);
		}
	}

	/**
	 * Return whether this application relies on the Reactor schedule hook (automatic
	 * context propagation was off at startup).
	 * @return whether the fallback hook is in use
	 */
	public boolean usesScheduleHook() {
		return this.usesScheduleHook;
	}

	@Override
	public void destroy() {
		if (this.usesScheduleHook && USERS.decrementAndGet() == 0) {
			Schedulers.resetOnScheduleHook(HOOK_KEY);
		}
	}

}
