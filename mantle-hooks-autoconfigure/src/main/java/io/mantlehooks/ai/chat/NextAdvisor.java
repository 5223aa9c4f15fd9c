package io.mantlehooks.ai.chat;

import java.util.List;

import io.mantlehooks.runtime.ChatModelOnlyRegistries;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.advisor.ChatModelStreamAdvisor;

/**
 * Finds the advisor right after one of ours in a chain, so that when it is also ours a
 * stream runs the two as one plain method call instead of a hop through Spring AI's
 * advisor chain.
 * <p>
 * Why: every hop of a stream through {@code DefaultAroundAdvisorChain} builds an advisor
 * observation context and aggregates every chunk of the stream again (about 6 KB for ten
 * chunks), whether or not anything observes it. A hooked turn has the turn, tool-loop and
 * model-call advisors; when nothing sits between them (no chat memory, RAG or logging
 * advisor), the chain's hops between them did nothing but cost. An advisor of the
 * application between two of ours keeps its place: then the hop is made as before.
 * <p>
 * Reaching past an advisor takes a copy of the chain ({@code chain.copy(next)}), since a
 * chain only moves on by calling the advisor at its head; in a {@code .call()} turn that
 * copy costs more than the hops it saves, so only streams call directly. Spring AI's own
 * model advisor, which ends the chain, is called directly in both, but only when nothing
 * observes the hop into it ({@link #unobservedNext}).
 */
final class NextAdvisor {

	private NextAdvisor() {
	}

	/**
	 * Return the advisor right after {@code self} in {@code advisors} when it is of the
	 * given type.
	 * @param <T> the type looked for
	 * @param advisors a chain's advisors, outermost first
	 * @param self the advisor asking
	 * @param type the type the next advisor must have
	 * @return the next advisor, or {@code null} when it is of another type, or
	 * {@code self} is last or not in the list
	 */
	static <T> @Nullable T after(List<?> advisors, Object self, Class<T> type) {
		int index = indexOf(advisors, self);
		Object next = (index >= 0 && index + 1 < advisors.size()) ? advisors.get(index + 1) : null;
		return type.isInstance(next) ? type.cast(next) : null;
	}

	/**
	 * Return the advisor right after {@code self} when it is of the given type and a hop
	 * into it through the chain would do nothing anybody sees: the chain's registry is
	 * the no-op one, or keeps only chat-model observations (the application has no
	 * observation handler of its own, {@link ChatModelOnlyRegistries}). Such a hop builds
	 * an advisor observation context, and in a stream aggregates every chunk again, only
	 * for them to be dropped. Spring AI's own model advisors
	 * ({@code ChatModelCallAdvisor}, {@code ChatModelStreamAdvisor}) end the chain and
	 * never use the chain they are given, so calling one directly is the same call; in a
	 * {@code .call()} turn the hook advisors call each other directly only when the whole
	 * way to that model advisor goes without a hop, since a copy of the chain costs more
	 * than the hop it saves.
	 * @param <T> the type looked for
	 * @param advisors the advisors of the chain {@code self} was given
	 * @param registry the chain's observation registry
	 * @param self the advisor asking
	 * @param type the type the next advisor must have
	 * @return the next advisor to call directly, or {@code null} to hop through the chain
	 */
	static <T> @Nullable T unobservedNext(List<?> advisors, ObservationRegistry registry, Object self, Class<T> type) {
		return ChatModelOnlyRegistries.observesEngine(registry) ? null : after(advisors, self, type);
	}

	/**
	 * Return whether the advisor a chain calls next, after {@code self}, is Spring AI's
	 * own model advisor, the end of the chain.
	 * @param advisors the advisors of the chain {@code self} was given: all of the chain
	 * when Spring AI hopped into {@code self}, or those after {@code self} when one of
	 * ours called it directly with a copy of the chain
	 * @param self the advisor asking
	 * @return whether the next advisor is Spring AI's model advisor
	 */
	static boolean isModelNext(List<?> advisors, Object self) {
		// absent (-1): the chain was copied after self, so the advisor next is its head
		int index = indexOf(advisors, self);
		return index + 1 < advisors.size() && advisors.get(index + 1) instanceof ChatModelStreamAdvisor;
	}

	/** The position of {@code self} (compared by identity), {@code -1} when absent. */
	private static int indexOf(List<?> advisors, Object self) {
		for (int i = 0; i < advisors.size(); i++) {
			if (advisors.get(i) == self) {
				return i;
			}
		}
		return -1;
	}

}
