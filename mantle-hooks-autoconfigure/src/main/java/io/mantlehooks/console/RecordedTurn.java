package io.mantlehooks.console;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A recorded turn.
 *
 * @param id the turn id
 * @param senderId the sender id
 * @param channel the channel name
 * @param conversationId the conversation id
 * @param agent the agent whose hooks ran in the turn: the name its {@code ChatClient}
 * gave with {@code MantleHooks.agent(...)}, {@code default} when it named none
 * @param outcome {@code completed}, {@code rejected}, {@code awaiting_approval}, ...;
 * {@code running} while the turn runs
 * @param start when the turn started
 * @param durationMs how long it took (so far, while running)
 * @param approvalId the batch it paused for approval, if it did
 * @param hooks its hook invocations, by start; the outgoing-text invocations of a reply
 * streamed in segments are one row ({@link RecordedHook#segments()})
 * @param messagePreview the first words of the user's message (as the transcript keeps
 * it: after the incoming-message modify hook), at most 60 characters on one line, so the
 * list tells turns apart; only with {@code mantle.hooks.console.include-text=true}, else
 * {@code null}, as it is for a turn without a user message
 */
public record RecordedTurn(String id, String senderId, String channel, String conversationId, String agent,
		String outcome, Instant start, double durationMs, @Nullable String approvalId, List<RecordedHook> hooks,
		@Nullable String messagePreview) {

}
