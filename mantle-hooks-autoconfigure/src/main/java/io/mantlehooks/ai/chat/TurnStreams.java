package io.mantlehooks.ai.chat;

import io.mantlehooks.ai.chat.TurnLoop.State;

import org.springframework.ai.chat.client.ChatClientResponse;

/**
 * What the loop does to chunks it streams live.
 */
final class TurnStreams {

	private TurnStreams() {
	}

	/**
	 * Whether a chunk goes to the caller: tool-call chunks do only when the application
	 * runs the tools (the turn's loop runs none), as without hooks. The OpenAI client
	 * merges the usage-only last chunk into the tool-call chunk, so it carries the
	 * round's usage too.
	 */
	static boolean reachesCaller(State state, ChatClientResponse chunk) {
		return !state.runsTools() || !ChatResponses.hasToolCalls(chunk.chatResponse());
	}

	/**
	 * A chunk that is the engine's reply for a failed model-request hook carries the
	 * outcome, as a buffered reply would.
	 */
	static ChatClientResponse withReportedOutcome(ChatClientResponse chunk) {
		RoundReport report = RoundReport.of(chunk);
		if (report == null || report.kind() != RoundReport.Kind.REQUEST_FAILED) {
			return chunk;
		}
		return TurnContexts.withOutcome(chunk, Outcome.hookError(report.detail()));
	}

}
