package io.mantlehooks.ai;

import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Runs the blocking parts of a streamed turn (hook calls, tool execution) on Reactor's
 * bounded-elastic scheduler, with the caller's context restored. Nothing here waits for
 * other work on that scheduler, so it cannot starve the threads that deliver the model's
 * chunks.
 */
final class Blocking {

	private Blocking() {
	}

	static <T> Mono<T> call(TurnState state, Supplier<T> work) {
		return Mono.fromCallable(() -> state.caller().call(work)).subscribeOn(Schedulers.boundedElastic());
	}

}
