package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.CallerContext;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;

/**
 * The advisor context at the edges of a turn. On entry, the turn goes in and every key
 * the engine owns comes out: a client cannot pass {@code mantle.outcome} as a param and
 * get it back as if a hook had decided it. On the way out, the engine's internal keys
 * come out and the turn's id and outcome go in.
 */
final class TurnContexts {

	/** The response-context keys only the engine sets. */
	static final Set<String> ENGINE_KEYS = Set.of(MantleHooks.TURN_ID, MantleHooks.OUTCOME, MantleHooks.REASON,
			MantleHooks.APPROVAL_ID, MantleHooks.APPROVAL_CALLS, MantleHooks.RETRACTED);

	private TurnContexts() {
	}

	/**
	 * Return the turn of a request. A loop or model-call advisor used without the turn
	 * advisor (on a hand-built chain) makes its own: nested in the current turn, or new.
	 */
	static Turn turnOf(ChatClientRequest request) {
		Turn turn = Turn.of(request);
		if (turn != null) {
			return turn;
		}
		Turn current = CurrentTurn.get();
		return (current != null) ? current.nested(request.context())
				: Turn.start(request.context(), CallerContext.capture());
	}

	/**
	 * Return the request of a turn: the turn in its context, engine-owned keys removed.
	 */
	static ChatClientRequest enter(ChatClientRequest request, Turn turn) {
		Map<String, @Nullable Object> context = sizedCopy(request.context(), 1);
		context.keySet().removeAll(ENGINE_KEYS);
		context.keySet().removeAll(Rounds.INTERNAL_KEYS);
		context.put(Turn.CONTEXT_KEY, turn);
		return new ChatClientRequest(request.prompt(), context);
	}

	/**
	 * A copy with room for {@code more} entries, so adding them does not grow it again.
	 */
	private static Map<String, @Nullable Object> sizedCopy(Map<String, @Nullable Object> source, int more) {
		Map<String, @Nullable Object> copy = new HashMap<>((int) ((source.size() + more) / 0.75f) + 1);
		copy.putAll(source);
		return copy;
	}

	/**
	 * Return the response the caller receives: internal keys removed, the turn's id
	 * added, and the outcome when the turn itself decided one.
	 */
	static ChatClientResponse leave(ChatClientResponse response, Turn turn, @Nullable Outcome outcome) {
		return new ChatClientResponse(response.chatResponse(), callerContext(response.context(), turn, outcome));
	}

	private static Map<String, @Nullable Object> callerContext(Map<String, @Nullable Object> source, Turn turn,
			@Nullable Outcome outcome) {
		Map<String, @Nullable Object> context = sizedCopy(source, (outcome != null) ? 4 : 2);
		context.keySet().removeAll(Rounds.INTERNAL_KEYS);
		context.put(MantleHooks.TURN_ID, turn.id());
		context.put(MantleHooks.AGENT, turn.agent());
		if (outcome != null) {
			context.put(MantleHooks.OUTCOME, outcome.value());
			context.put(MantleHooks.REASON, outcome.reason());
		}
		return context;
	}

	/**
	 * Return the response with an outcome, unless it already carries one.
	 */
	static ChatClientResponse withOutcome(ChatClientResponse response, @Nullable Outcome outcome) {
		if (outcome == null || response.context().containsKey(MantleHooks.OUTCOME)) {
			return response;
		}
		Map<String, @Nullable Object> context = new HashMap<>(response.context());
		context.put(MantleHooks.OUTCOME, outcome.value());
		context.put(MantleHooks.REASON, outcome.reason());
		return new ChatClientResponse(response.chatResponse(), context);
	}

	/**
	 * The caller's context for each chunk of one streamed turn. The chunks of a stream
	 * carry equal contexts (each a copy of the request's), so the caller's copy is made
	 * once and again only when a chunk's context differs.
	 */
	static final class Chunks {

		private final Turn turn;

		private @Nullable Map<String, @Nullable Object> source;

		private @Nullable Map<String, @Nullable Object> context;

		/**
		 * Whether a retraction went out: the chunks after it are marked not retracted.
		 */
		private boolean retracted;

		Chunks(Turn turn) {
			this.turn = turn;
		}

		synchronized ChatClientResponse leave(ChatClientResponse chunk) {
			Map<String, @Nullable Object> chunkContext = chunk.context();
			Map<String, @Nullable Object> current = this.context;
			// chunk contexts are equal copies (a new map for each chunk, empty when
			// the application passes no context), or one shared instance
			if (current == null || (chunkContext != this.source && !sameEntries(chunkContext, this.source))) {
				// shared by the chunks, not wrapped: Spring AI's chain always hops into
				// the turn advisor, and its aggregator only reads this map and gives the
				// caller each chunk with a copy; a read-only view would cost wrappers
				// for every entry it reads, on every chunk
				current = callerContext(chunkContext, this.turn, null);
				this.source = chunkContext;
				this.context = current;
			}
			if (SegmentedReply.isRetraction(chunk)) {
				this.retracted = true;
			}
			else if (this.retracted) {
				// Spring AI's aggregators (the client's own, a memory advisor's) give
				// each
				// chunk the context of all chunks before it: an explicit false after a
				// retraction keeps the mark on the retraction alone
				Map<String, @Nullable Object> unmarked = sizedCopy(current, 1);
				unmarked.put(MantleHooks.RETRACTED, Boolean.FALSE);
				return new ChatClientResponse(chunk.chatResponse(), unmarked);
			}
			return new ChatClientResponse(chunk.chatResponse(), current);
		}

		/**
		 * Whether two chunk contexts hold the same entries; two empty ones (each chunk
		 * gets a new empty map when the application passes no context) without an
		 * iterator.
		 */
		private static boolean sameEntries(Map<String, @Nullable Object> chunk,
				@Nullable Map<String, @Nullable Object> source) {
			if (source == null) {
				return false;
			}
			return (chunk.isEmpty() && source.isEmpty()) || chunk.equals(source);
		}

	}

}
