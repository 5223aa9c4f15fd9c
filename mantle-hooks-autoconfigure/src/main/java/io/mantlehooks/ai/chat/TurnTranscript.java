package io.mantlehooks.ai.chat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.observation.TurnObservationContext;
import org.jspecify.annotations.Nullable;

/**
 * The transcript of one turn that went to the chain: the user's message and what the user
 * received, chunk by chunk (a {@code .call()} response is one chunk). A stream may end by
 * completing or by being cancelled at any moment, also while an entry is being written;
 * each entry is written once, and the user's message always before the reply. Chunks
 * arrive on Reactor threads, which only ever wait for the short buffer lock; the writes
 * (which may block on a database) run on the hook executor under their own lock, which
 * does not pin a virtual thread's carrier.
 */
final class TurnTranscript {

	private final TranscriptRecorder transcript;

	private final Turn turn;

	private final @Nullable String userText;

	private final Instant startedAt;

	/** Guards {@link #received} and {@link #outcome}, never held while writing. */
	private final Object buffer = new Object();

	private final StringBuilder received = new StringBuilder();

	private @Nullable String outcome;

	/**
	 * What the user was shown and then had retracted, in order: a tool round's text that
	 * preflight discarded, or the draft a rejected sentence ended.
	 */
	private final List<Retraction> retracted = new ArrayList<>();

	/** Orders the writes; guards the two flags. */
	private final ReentrantLock writes = new ReentrantLock();

	private boolean userWritten;

	private boolean replyWritten;

	TurnTranscript(TranscriptRecorder transcript, Turn turn, @Nullable String userText, Instant startedAt) {
		this.transcript = transcript;
		this.turn = turn;
		this.userText = userText;
		this.startedAt = startedAt;
	}

	/**
	 * A chunk the user received: its text, the outcome it carries, if any, and whether it
	 * replaces everything received before it.
	 */
	void received(@Nullable String text, @Nullable String outcome, boolean retraction) {
		synchronized (this.buffer) {
			if (retraction) {
				this.retracted.add(new Retraction(this.received.toString(), outcome));
				this.received.setLength(0);
			}
			if (text != null) {
				this.received.append(text);
			}
			if (outcome != null) {
				this.outcome = outcome;
			}
		}
	}

	/** Write the user's message, once. */
	void user() {
		this.writes.lock();
		try {
			writeUser();
		}
		finally {
			this.writes.unlock();
		}
	}

	/** The stream completed: write what the user received, with its outcome, once. */
	void completed() {
		reply(null);
	}

	/**
	 * The stream was cancelled: write what the caller received so far, once, as
	 * discarded. Whether it reached the user is unknown (a client that went away takes
	 * the last chunks with it), and chat memory stores nothing of a cancelled reply
	 * either, so later model requests leave it out.
	 */
	void cancelled() {
		reply(TurnObservationContext.CANCELLED);
	}

	private void reply(@Nullable String endedWith) {
		this.writes.lock();
		try {
			writeUser();
			if (this.replyWritten) {
				return;
			}
			this.replyWritten = true;
			String text;
			String outcome;
			List<Retraction> retractions;
			synchronized (this.buffer) {
				text = this.received.toString();
				outcome = this.outcome;
				retractions = List.copyOf(this.retracted);
			}
			for (Retraction retraction : retractions) {
				// what the user was shown before each retraction, set aside
				this.transcript.assistant(this.turn, retraction.shown(), true, retraction.outcome());
			}
			this.transcript.assistant(this.turn, text, endedWith != null, (endedWith != null) ? endedWith : outcome);
		}
		finally {
			this.writes.unlock();
		}
	}

	private void writeUser() {
		if (!this.userWritten) {
			this.userWritten = true;
			this.transcript.user(this.turn, this.userText, false, null, this.startedAt);
		}
	}

	/**
	 * What the user was shown before a retraction, and the retraction's outcome, if any.
	 */
	private record Retraction(String shown, @Nullable String outcome) {
	}

}
