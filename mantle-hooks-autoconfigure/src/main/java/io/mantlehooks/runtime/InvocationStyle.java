package io.mantlehooks.runtime;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * How a hook method hands back its result: by returning (blocking) or through a
 * {@link CompletionStage} or Reactor {@code Mono}.
 */
public enum InvocationStyle {

	/** Runs on the hook executor; its return value is the result. */
	BLOCKING("value"),

	/** Called on the hook executor; the returned stage is awaited without a thread. */
	COMPLETION_STAGE("CompletionStage"),

	/**
	 * Called on the hook executor; the returned {@code Mono} is subscribed there and
	 * awaited without a thread.
	 */
	MONO("Mono");

	private final String returnTypeName;

	InvocationStyle(String returnTypeName) {
		this.returnTypeName = returnTypeName;
	}

	/**
	 * Return how the result is named in messages.
	 * @return {@code value}, {@code CompletionStage} or {@code Mono}
	 */
	public String returnTypeName() {
		return this.returnTypeName;
	}

	/** Reactor's {@code Mono}, by name: Reactor is optional. */
	private static final String MONO_TYPE = "reactor.core.publisher.Mono";

	/**
	 * Return how a hook method returns its result.
	 * @param method the method
	 * @return its style
	 */
	public static InvocationStyle of(Method method) {
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			return COMPLETION_STAGE;
		}
		return isMono(returnType) ? MONO : BLOCKING;
	}

	/**
	 * Return whether the type is Reactor's {@code Mono} or a subclass. Compared by name
	 * up the superclasses ({@code Mono} is a class): a type that is one has Reactor
	 * present, and an application whose hooks return none does not load {@code Mono}
	 * while it starts.
	 * @param type a return type
	 * @return whether it is a {@code Mono}
	 */
	public static boolean isMono(Class<?> type) {
		for (Class<?> current = type; current != null; current = current.getSuperclass()) {
			if (MONO_TYPE.equals(current.getName())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return Reactor's {@code Mono} type; only call when {@link #isMono} said yes.
	 * @return the type
	 */
	public static Class<?> monoType() {
		return ReactorTypes.monoType();
	}

	/**
	 * Adapt what an asynchronous hook returned to a future; an empty {@code Mono}
	 * completes with {@code null}.
	 * @param returned the stage or {@code Mono} the hook returned
	 * @return a future of its result
	 */
	public CompletableFuture<@Nullable Object> toFuture(Object returned) {
		if (this == MONO) {
			return ReactorTypes.toFuture(returned);
		}
		@SuppressWarnings("unchecked")
		CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) returned;
		return stage.toCompletableFuture();
	}

	/** Keeps Reactor types out of the enum's own signature so Reactor stays optional. */
	private static final class ReactorTypes {

		static Class<?> monoType() {
			return Mono.class;
		}

		/**
		 * Subscribe right here: the method was called on a hook-executor thread, so a
		 * lazy {@code Mono} (say {@code Mono.fromCallable}) does its work there, under
		 * the timeout.
		 */
		@SuppressWarnings("unchecked")
		static CompletableFuture<@Nullable Object> toFuture(Object returned) {
			return ((Mono<@Nullable Object>) returned).toFuture();
		}

	}

}
