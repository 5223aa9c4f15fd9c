package io.mantlehooks.ai.chat;

import java.time.Instant;

import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.observation.TurnObservationContext;
import org.jspecify.annotations.Nullable;

/**
 * The transcript of one streamed turn. A stream may end by completing or by being
 * cancelled at any moment, also while an entry is being written; each entry is written
 * once, and the user's message always before the reply.
 */
final class StreamedTranscript {

	private final TranscriptRecorder transcript;

	private final Turn turn;

	private final @Nullable String userText;

	private final Instant startedAt;

	private final StringBuilder received = new StringBuilder();

	private @Nullable String outcome;

	private boolean userWritten;

	private boolean replyWritten;

	StreamedTranscript(TranscriptRecorder transcript, Turn turn, @Nullable String userText, Instant startedAt) {
		this.transcript = transcript;
		this.turn = turn;
		this.userText = userText;
		this.startedAt = startedAt;
	}

	/** A chunk the user received: its text, and the outcome it carries, if any. */
	synchronized void received(@Nullable String text, @Nullable String outcome) {
		if (text != null) {
			this.received.append(text);
		}
		if (outcome != null) {
			this.outcome = outcome;
		}
	}

	/** Write the user's message, once. */
	synchronized void user() {
		if (!this.userWritten) {
			this.userWritten = true;
			this.transcript.user(this.turn, this.userText, false, null, this.startedAt);
		}
	}

	/** The stream completed: write what the user received, with its outcome, once. */
	void completed() {
		reply(null);
	}

	/** The stream was cancelled: write what the user received so far, once. */
	void cancelled() {
		reply(TurnObservationContext.CANCELLED);
	}

	private synchronized void reply(@Nullable String endedWith) {
		user();
		if (!this.replyWritten) {
			this.replyWritten = true;
			this.transcript.assistant(this.turn, this.received.toString(), false,
					(endedWith != null) ? endedWith : this.outcome);
		}
	}

}
