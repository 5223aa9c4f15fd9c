package io.mantlehooks.observation;

import io.mantlehooks.MantleHooks;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a {@code mantle.turn} observation knows of its turn.
 */
public class TurnObservationContext extends Observation.Context {

	/** The outcome of a turn that ended normally. */
	public static final String COMPLETED = "completed";

	/** The outcome of a turn that ended with an exception or an error signal. */
	public static final String ERROR = "error";

	/** The outcome of a cancelled turn. */
	public static final String CANCELLED = "cancelled";

	private final String turnId;

	private final String channel;

	private String outcome = COMPLETED;

	private String agent = MantleHooks.DEFAULT_AGENT;

	private String senderId = "";

	private String conversationId = "";

	private @Nullable String approvalId;

	private volatile @Nullable String userText;

	/**
	 * Create a context.
	 * @param turnId the turn's id
	 * @param channel the channel's name
	 */
	public TurnObservationContext(String turnId, String channel) {
		Assert.notNull(turnId, "'turnId' must not be null");
		Assert.notNull(channel, "'channel' must not be null");
		this.turnId = turnId;
		this.channel = channel;
	}

	/**
	 * Return the turn's id.
	 * @return the id
	 */
	public String getTurnId() {
		return this.turnId;
	}

	/**
	 * Return the agent whose hooks run in the turn.
	 * @return the agent's name, {@code default} when the client named none
	 */
	public String getAgent() {
		return this.agent;
	}

	/**
	 * Set the agent whose hooks run in the turn.
	 * @param agent the agent's name
	 */
	public void setAgent(String agent) {
		Assert.hasText(agent, "'agent' must not be empty");
		this.agent = agent;
	}

	/**
	 * Return the channel's name.
	 * @return the name, {@code ""} when none was set
	 */
	public String getChannel() {
		return this.channel;
	}

	/**
	 * Return how the turn ended.
	 * @return the outcome, {@link #COMPLETED} until another is set
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the turn ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

	/**
	 * Return the sender id of the turn.
	 * @return the sender id, {@code ""} when none was given
	 */
	public String getSenderId() {
		return this.senderId;
	}

	/**
	 * Set the sender id of the turn.
	 * @param senderId the sender id
	 */
	public void setSenderId(String senderId) {
		this.senderId = senderId;
	}

	/**
	 * Return the conversation id of the turn ({@code ChatMemory.CONVERSATION_ID}, else
	 * the sender id).
	 * @return the conversation id
	 */
	public String getConversationId() {
		return this.conversationId;
	}

	/**
	 * Set the conversation id of the turn.
	 * @param conversationId the conversation id
	 */
	public void setConversationId(String conversationId) {
		this.conversationId = conversationId;
	}

	/**
	 * Return the id of the tool-call batch the turn paused for approval.
	 * @return the approval id, {@code null} when the turn did not pause
	 */
	public @Nullable String getApprovalId() {
		return this.approvalId;
	}

	/**
	 * Set the id of the batch the turn paused for approval.
	 * @param approvalId the approval id
	 */
	public void setApprovalId(@Nullable String approvalId) {
		this.approvalId = approvalId;
	}

	/**
	 * Return the text of the turn's user message as the turn went on with it: after the
	 * incoming-message modify hook (so a redaction applies), or as sent when it was
	 * rejected; the same text the transcript keeps. It may hold personal data: a handler
	 * should not keep or show it unless the application chose so (the turn console shows
	 * its first words only with {@code mantle.hooks.console.include-text=true}).
	 * @return the text, {@code null} until the incoming-message hooks have run, and for a
	 * turn without a user message
	 */
	public @Nullable String getUserText() {
		return this.userText;
	}

	/**
	 * Set the text of the turn's user message.
	 * @param userText the text, as the turn went on with it
	 */
	public void setUserText(@Nullable String userText) {
		this.userText = userText;
	}

}
