package io.mantlehooks;

import java.util.Map;

/**
 * What every payload carries: the engine-owned identity of the turn. Modify hooks cannot
 * change these fields; the runner restores them from the input payload on whatever a hook
 * returns.
 */
public sealed interface HookPayload permits TurnStartedPayload, TurnFinishedPayload, IncomingMessagePayload,
		ModelRequestPayload, ModelResponsePayload, ToolCallPayload, ToolResultPayload, KnowledgeQueryPayload,
		KnowledgeResultsPayload, OutgoingTextPayload {

	/**
	 * The conversation or user id of the turn, {@code ""} when unknown.
	 * @return the sender id
	 */
	String senderId();

	/**
	 * Telephony or session metadata, empty unless the app supplies it.
	 * @return the call metadata, deeply unmodifiable
	 */
	Map<String, Object> call();

	/**
	 * The channel name and front-end metadata.
	 * @return the channel
	 */
	Channel channel();

}
