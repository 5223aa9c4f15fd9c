package io.mantlehooks.runtime;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.util.ClassUtils;

/**
 * How a hook method hands back its result: by returning (blocking) or through a
 * {@link CompletionStage} or Reactor {@code Mono}.
 */
enum InvocationStyle {

	/** Runs on the hook executor; its return value is the result. */
	BLOCKING,

	/** Called on the caller's thread; the returned stage is awaited. */
	COMPLETION_STAGE,

	/**
	 * Called on the caller's thread; the returned {@code Mono} is subscribed and awaited.
	 */
	MONO;

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			InvocationStyle.class.getClassLoader());

	static InvocationStyle of(Method method) {
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			return COMPLETION_STAGE;
		}
		if (REACTOR_PRESENT && ReactorTypes.isMono(returnType)) {
			return MONO;
		}
		return BLOCKING;
	}

	static boolean isMono(Class<?> type) {
		return REACTOR_PRESENT && ReactorTypes.isMono(type);
	}

	/**
	 * Return Reactor's {@code Mono} type; only call when {@link #isMono} said yes.
	 */
	static Class<?> monoType() {
		return ReactorTypes.monoType();
	}

	/**
	 * Adapt what an asynchronous hook returned to a future; an empty {@code Mono}
	 * completes with {@code null}.
	 */
	CompletableFuture<@Nullable Object> toFuture(Object returned, Executor executor) {
		if (this == MONO) {
			return ReactorTypes.toFuture(returned, executor);
		}
		@SuppressWarnings("unchecked")
		CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) returned;
		return stage.toCompletableFuture();
	}

	/** Keeps Reactor types out of the enum's own signature so Reactor stays optional. */
	private static final class ReactorTypes {

		static boolean isMono(Class<?> type) {
			return Mono.class.isAssignableFrom(type);
		}

		static Class<?> monoType() {
			return Mono.class;
		}

		@SuppressWarnings("unchecked")
		/**
		 * Subscribe on the hook executor: a lazy {@code Mono} (say
		 * {@code Mono.fromCallable}) does its work when subscribed, and that work must
		 * not run on the caller's thread outside the timeout.
		 */
		static CompletableFuture<@Nullable Object> toFuture(Object returned, Executor executor) {
			return ((Mono<@Nullable Object>) returned).subscribeOn(Schedulers.fromExecutor(executor)).toFuture();
		}

	}

}
