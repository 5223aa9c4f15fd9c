package io.mantlehooks.ai.turn;

import java.util.concurrent.atomic.AtomicBoolean;

import io.mantlehooks.runtime.HookRegistry;
import io.micrometer.context.ContextRegistry;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Carries the current turn where Spring AI changes threads, without touching Reactor's
 * global hooks:
 * <ul>
 * <li>the turn advisor writes the turn into the Reactor context ({@link #contextWrite}),
 * where the chat-model wrapper finds it, and where Reactor's automatic context
 * propagation ({@code spring.reactor.context-propagation=auto}) restores it;</li>
 * <li>while the application has hooks, the current turn is registered with Micrometer's
 * context registry, so context-propagating executors (RAG's retrieval executor, Spring's
 * {@code ContextPropagatingTaskDecorator}) carry it; it is removed again when the last
 * application that registered it closes;</li>
 * <li>the turn advisor runs the {@code before}/{@code after} of Spring AI's
 * {@code BaseAdvisor}s (a {@code QuestionAnswerAdvisor}, which searches on
 * bounded-elastic) with the turn current, and hook threads make it current while a hook
 * runs.</li>
 * </ul>
 */
public final class CurrentTurnPropagation implements SmartInitializingSingleton, DisposableBean {

	private final HookRegistry hooks;

	private final AtomicBoolean registered = new AtomicBoolean();

	/**
	 * Create the propagation of an application's turns.
	 * @param hooks the application's hooks: nothing is registered while it has none
	 */
	public CurrentTurnPropagation(HookRegistry hooks) {
		this.hooks = hooks;
	}

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
	 * Subscribe to the flux with the turn current on the subscribing thread, so what the
	 * subscription does right away on that thread (a chat model's observation) knows the
	 * turn.
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
		this.hooks.onInstall((installed) -> {
			if (!installed.pointsWithHooks().isEmpty() && this.registered.compareAndSet(false, true)) {
				CurrentTurn.registerWith(ContextRegistry.getInstance());
			}
		});
	}

	/**
	 * Return whether this application registered the current turn with Micrometer's
	 * context registry (it has hooks).
	 * @return whether the current turn is registered for this application
	 */
	public boolean isRegistered() {
		return this.registered.get();
	}

	@Override
	public void destroy() {
		if (this.registered.compareAndSet(true, false)) {
			CurrentTurn.unregisterFrom(ContextRegistry.getInstance());
		}
	}

}
