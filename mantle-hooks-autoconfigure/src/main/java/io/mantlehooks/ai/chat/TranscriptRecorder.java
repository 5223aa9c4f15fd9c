package io.mantlehooks.ai.chat;

import java.time.Clock;
import java.time.Instant;

import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Writes a turn's utterances to the transcript: the user's message as accepted (or as
 * sent, discarded, when rejected) and the reply the user received. A failed write is
 * logged with the turn id and never fails the turn. Nested turns have no user of their
 * own and write nothing.
 */
final class TranscriptRecorder {

	static final TranscriptRecorder NONE = new TranscriptRecorder(null, Clock.systemUTC());

	private static final Log logger = LogFactory.getLog(TranscriptRecorder.class);

	/** Spring AI's chat memory uses this id when a request names no conversation. */
	private static final String DEFAULT_CONVERSATION = "default";

	private final @Nullable TranscriptStore store;

	private final Clock clock;

	TranscriptRecorder(@Nullable TranscriptStore store, Clock clock) {
		this.store = store;
		this.clock = clock;
	}

	boolean records() {
		return this.store != null;
	}

	Instant now() {
		return this.clock.instant();
	}

	void user(Turn turn, @Nullable String text, boolean discarded, @Nullable String outcome, Instant at) {
		if (text != null) {
			append(turn, TranscriptRole.USER, text, discarded, outcome, at);
		}
	}

	void assistant(Turn turn, @Nullable String text, boolean discarded, @Nullable String outcome) {
		if (text != null && !text.isEmpty()) {
			append(turn, TranscriptRole.ASSISTANT, text, discarded, outcome, now());
		}
	}

	/**
	 * Return the conversation a turn's entries are written under.
	 */
	static String conversationOf(Turn turn) {
		return turn.conversationId().isEmpty() ? DEFAULT_CONVERSATION : turn.conversationId();
	}

	private void append(Turn turn, TranscriptRole role, String text, boolean discarded, @Nullable String outcome,
			Instant at) {
		TranscriptStore store = this.store;
		if (store == null || turn.isNested()) {
			return;
		}
		try {
			store.append(new TranscriptEntry(conversationOf(turn), turn.id(), turn.senderId(), turn.channel().name(),
					role, text, discarded, outcome, at));
		}
		catch (RuntimeException | Error ex) {
			turn.scope()
				.run(() -> logger.warn("Could not write the " + role.name().toLowerCase() + " message of turn "
						+ turn.id() + " to the transcript; the turn goes on", ex));
		}
	}

}
