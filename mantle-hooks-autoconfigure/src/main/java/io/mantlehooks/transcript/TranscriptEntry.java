package io.mantlehooks.transcript;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One utterance of a conversation.
 *
 * @param conversationId the conversation ({@code ChatMemory.CONVERSATION_ID} when given,
 * else the sender id)
 * @param turnId the turn it belongs to
 * @param senderId the sender
 * @param channel the channel's name, {@code ""} when none
 * @param role who said it
 * @param text what was said: the user's text as accepted (or as sent, when rejected), the
 * reply as the user received it
 * @param discarded whether the engine set it aside: a rejected message and the rejection
 * reply, which later model history leaves out
 * @param outcome the turn's {@code mantle.outcome} when it had one (for example
 * {@code rejected}), else {@code null}
 * @param timestamp when it was said
 */
public record TranscriptEntry(String conversationId, String turnId, String senderId, String channel,
		TranscriptRole role, String text, boolean discarded, @Nullable String outcome, Instant timestamp) {

	/**
	 * Create an entry; the conversation id must not be empty and no other component
	 * {@code null}.
	 * @param conversationId the conversation ({@code ChatMemory.CONVERSATION_ID} when
	 * given, else the sender id)
	 * @param turnId the turn it belongs to
	 * @param senderId the sender
	 * @param channel the channel's name, {@code ""} when none
	 * @param role who said it
	 * @param text what was said: the user's text as accepted (or as sent, when rejected),
	 * the reply as the user received it
	 * @param discarded whether the engine set it aside: a rejected message and the
	 * rejection reply, which later model history leaves out
	 * @param outcome the turn's {@code mantle.outcome} when it had one (for example
	 * {@code rejected}), else {@code null}
	 * @param timestamp when it was said
	 */
	public TranscriptEntry {
		Assert.hasText(conversationId, "'conversationId' must not be empty");
		Assert.notNull(turnId, "'turnId' must not be null");
		Assert.notNull(senderId, "'senderId' must not be null");
		Assert.notNull(channel, "'channel' must not be null");
		Assert.notNull(role, "'role' must not be null");
		Assert.notNull(text, "'text' must not be null");
		Assert.notNull(timestamp, "'timestamp' must not be null");
	}

}
