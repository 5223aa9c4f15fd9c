package io.mantlehooks.ai.chat;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ai.turn.HookSteps;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.execution.HookRunner;
import org.jspecify.annotations.Nullable;

/**
 * Runs the outgoing-text hooks on a completed reply, where the reply is final: in the
 * tool loop for the model's replies (inside chat memory, so memory stores what the user
 * received) and in the turn advisor for the replies that end a turn before memory (a
 * rejected message). A rewrite is what the user receives; a rejection replaces the reply
 * with a named response, which passes the modify hook once more, and when that is
 * rejected too nothing is sent. Crashes keep the original text.
 */
final class OutgoingTextStage {

	private final HookRunner hooks;

	private final HookResponses responses;

	OutgoingTextStage(HookRunner hooks, HookResponses responses) {
		this.hooks = hooks;
		this.responses = responses;
	}

	/**
	 * Return whether a hook may still change or drop a completed reply, so a streamed
	 * reply must be held back until it is complete: a modify hook that sees whole
	 * replies.
	 */
	boolean buffersReplies(Turn turn) {
		return modifierStreams(this.hooks, turn, StreamMode.WHOLE);
	}

	/**
	 * Return whether the modify hook rewrites a streamed reply sentence by sentence.
	 */
	boolean cutsSentences(Turn turn) {
		return modifierStreams(this.hooks, turn, StreamMode.SENTENCES);
	}

	/**
	 * Return whether the turn's outgoing-text modify hook sees streamed replies in the
	 * given mode ({@code false} without one).
	 */
	static boolean modifierStreams(HookRunner hooks, Turn turn, StreamMode mode) {
		HookMethod modifier = hooks.hooks(turn.scope()).modifier(HookPoint.OUTGOING_TEXT);
		return modifier != null && modifier.streamMode() == mode;
	}

	/**
	 * Pass a completed reply through the hooks.
	 */
	Step<Reply> process(Turn turn, String text) {
		if (!this.hooks.hasHooks(HookPoint.OUTGOING_TEXT, turn.scope())) {
			return Step.done(new Reply(text, null));
		}
		return process(turn, turn.outgoingText(text), true);
	}

	/**
	 * Pass one segment of a reply streamed sentence by sentence through the modify hook
	 * (observers see the whole reply once it is complete, through
	 * {@link #observeStreamed}).
	 * @param segment the segment's number in the reply, from 0
	 * @param last whether it ends the reply
	 */
	Step<Reply> segment(Turn turn, String text, int segment, boolean last) {
		return process(turn, turn.outgoingSegment(text, segment, last), false);
	}

	private Step<Reply> process(Turn turn, OutgoingTextPayload draft, boolean observe) {
		String text = draft.text();
		return hooks(turn, draft, observe).then((result) -> {
			if (result instanceof ModifyResult.Proceed<OutgoingTextPayload> proceed) {
				return Step.done(new Reply(proceed.payload().text(), null));
			}
			if (result instanceof ModifyResult.Signalled<OutgoingTextPayload> signalled
					&& signalled.signal() instanceof HookRejection rejection) {
				return fallback(turn, draft, rejection, observe);
			}
			// fail open: the original text is sent
			return Step.done(new Reply(text, null));
		});
	}

	/**
	 * The rejection's named reply, which passes the modify hook once more, as the reply's
	 * last segment.
	 */
	private Step<ModifyResult<OutgoingTextPayload>> hooks(Turn turn, OutgoingTextPayload payload, boolean observe) {
		return observe ? HookSteps.run(this.hooks, HookPoint.OUTGOING_TEXT, payload, turn)
				: HookSteps.runModifier(this.hooks, HookPoint.OUTGOING_TEXT, payload, turn);
	}

	private Step<Reply> fallback(Turn turn, OutgoingTextPayload draft, HookRejection rejection, boolean observe) {
		Outcome outcome = Outcome.rejected(rejection.reason());
		String fallback = this.responses.resolve(rejection.responseMessage().orElse(null),
				HookResponses.OUTGOING_TEXT_REJECTED);
		OutgoingTextPayload named = turn.outgoingSegment(fallback, draft.segment(), true);
		return hooks(turn, named, observe).map((second) -> {
			if (second instanceof ModifyResult.Proceed<OutgoingTextPayload> proceed) {
				return new Reply(proceed.payload().text(), outcome);
			}
			// rejected again: nothing is sent; crashed: the fallback as it was
			return new Reply((second instanceof ModifyResult.Failed) ? fallback : null, outcome);
		});
	}

	/**
	 * Let observers see a reply that was streamed live and is now complete.
	 */
	void observeStreamed(Turn turn, String text) {
		this.hooks.observe(HookPoint.OUTGOING_TEXT, turn.outgoingText(text), turn.scope());
	}

	/**
	 * Return whether observers want to see streamed replies.
	 */
	boolean observesStreamed(Turn turn) {
		return this.hooks.hasObservers(HookPoint.OUTGOING_TEXT, turn.scope());
	}

	/**
	 * A reply after the outgoing-text hooks.
	 *
	 * @param text what the user receives, {@code null} when the reply is dropped
	 * @param outcome why it differs from the draft, when a hook rejected it
	 */
	record Reply(@Nullable String text, @Nullable Outcome outcome) {
	}

}
