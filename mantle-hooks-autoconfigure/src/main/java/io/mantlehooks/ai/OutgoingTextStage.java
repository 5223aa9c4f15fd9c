package io.mantlehooks.ai;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.ModifyResult;
import org.jspecify.annotations.Nullable;

/**
 * Runs the outgoing-text hooks on a completed reply. A rewrite is what the user receives;
 * a rejection replaces the reply with a named response, which passes the modify hook once
 * more, and when that is rejected too nothing is sent. Crashes keep the original text.
 */
final class OutgoingTextStage {

	private final HookRunner hooks;

	private final HookResponses responses;

	OutgoingTextStage(HookRunner hooks, HookResponses responses) {
		this.hooks = hooks;
		this.responses = responses;
	}

	boolean buffersReplies() {
		return this.hooks.hasModifier(HookPoint.OUTGOING_TEXT);
	}

	/**
	 * Return the text to send for a completed reply, or {@code null} when the reply is
	 * dropped: nothing is sent and nothing stored.
	 */
	@Nullable String process(TurnState state, String text) {
		if (!this.hooks.hasHooks(HookPoint.OUTGOING_TEXT)) {
			return text;
		}
		OutgoingTextPayload draft = new OutgoingTextPayload(text, state.voice(), state.senderId(), state.call(),
				state.channel());
		ModifyResult<OutgoingTextPayload> result = run(draft);
		if (result instanceof ModifyResult.Proceed<OutgoingTextPayload> proceed) {
			return proceed.payload().text();
		}
		if (result instanceof ModifyResult.Signalled<OutgoingTextPayload> signalled
				&& signalled.signal() instanceof HookRejection rejection) {
			state.outcome(Outcomes.REJECTED, rejection.reason());
			String fallback = this.responses.resolve(rejection.responseMessage().orElse(null),
					HookResponses.OUTGOING_TEXT_REJECTED);
			ModifyResult<OutgoingTextPayload> second = run(draft.withText(fallback));
			if (second instanceof ModifyResult.Proceed<OutgoingTextPayload> proceed) {
				return proceed.payload().text();
			}
			return (second instanceof ModifyResult.Failed) ? fallback : null;
		}
		// fail open: the original text is sent
		return text;
	}

	private ModifyResult<OutgoingTextPayload> run(OutgoingTextPayload payload) {
		this.hooks.observe(HookPoint.OUTGOING_TEXT, payload);
		return this.hooks.modify(HookPoint.OUTGOING_TEXT, payload);
	}

	/**
	 * Let observers see a reply that was streamed live and is now complete.
	 */
	void observeStreamed(TurnState state, String text) {
		if (!this.hooks.observers(HookPoint.OUTGOING_TEXT).isEmpty()) {
			this.hooks.observe(HookPoint.OUTGOING_TEXT,
					new OutgoingTextPayload(text, state.voice(), state.senderId(), state.call(), state.channel()));
		}
	}

}
