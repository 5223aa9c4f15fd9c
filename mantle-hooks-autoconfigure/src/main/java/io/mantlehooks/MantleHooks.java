package io.mantlehooks;

import java.util.Map;
import java.util.function.Consumer;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.core.Ordered;
import org.springframework.util.Assert;

/**
 * Entry points for applications: the context keys mantle-hooks reads and writes, and
 * helpers to pass a turn's identity to a {@link ChatClient} call.
 *
 * <pre class="code">
 * chatClient.prompt().user(text)
 *     .advisors(MantleHooks.identity("user-42", Channel.of("rest")))
 *     .call().content();
 * </pre>
 */
public final class MantleHooks {

	/** Advisor param: the sender id ({@code String}) of the turn. */
	public static final String SENDER_ID = "mantle.sender_id";

	/** Advisor param: the {@link Channel} of the turn. */
	public static final String CHANNEL = "mantle.channel";

	/** Advisor param: telephony or session metadata ({@code Map<String, Object>}). */
	public static final String CALL = "mantle.call";

	/** Advisor param: the channel's id ({@code String}) of the incoming message. */
	public static final String MESSAGE_ID = "mantle.message_id";

	/** Advisor param: whether the turn comes from a voice channel ({@code Boolean}). */
	public static final String VOICE = "mantle.voice";

	/** Response context key: the id of the turn. */
	public static final String TURN_ID = "mantle.turn_id";

	/**
	 * Response context key: set when the reply is not simply the model's: a hook rejected
	 * ({@code rejected}) or failed closed ({@code hook_error}), the turn reached
	 * {@code mantle.hooks.max-iterations} ({@code max_iterations}), its {@code .call()}
	 * thread was interrupted ({@code cancelled}), a tool call waits for approval
	 * ({@code awaiting_approval}, with {@link #APPROVAL_ID}), an approval or denial named
	 * no pending batch ({@code approval_not_found}) or one this turn may not decide
	 * ({@code approval_not_allowed}: it keeps waiting). Only the engine sets it: a
	 * client-supplied value is removed when the turn starts.
	 */
	public static final String OUTCOME = "mantle.outcome";

	/**
	 * Response context key: the hook's reason for an {@link #OUTCOME}; never shown to
	 * users.
	 */
	public static final String REASON = "mantle.reason";

	/**
	 * Response context key: the id of the tool-call batch this turn paused for approval
	 * (with {@code mantle.outcome=awaiting_approval}); pass it to {@link #approve} or
	 * {@link #deny}. Only the engine sets it.
	 */
	public static final String APPROVAL_ID = "mantle.approval_id";

	/**
	 * Response context key: with {@link #APPROVAL_ID}, every call that runs if the batch
	 * is approved, in batch order, as a
	 * {@code List<io.mantlehooks.approval.ApprovalCall>}: the calls the approval question
	 * names. Only the engine sets it.
	 */
	public static final String APPROVAL_CALLS = "mantle.approval_calls";

	/**
	 * Response-context key: {@code true} on the chunk of a streamed reply whose text
	 * replaces everything streamed before it in that reply (an outgoing-text hook
	 * rejected a later sentence, or preflight discarded a tool round's batch and the text
	 * that came with it). The chunks after a retraction carry {@code false}: Spring AI's
	 * {@code ChatClient} gives each chunk the context keys of the chunks before it. The
	 * retraction's {@code ChatResponse} metadata carries the key too. Only the engine
	 * sets it.
	 */
	public static final String RETRACTED = "mantle.retracted";

	/**
	 * Advisor param and response context key: the agent ({@code String}) whose hooks run
	 * in the turn. Set it with {@link #agent(String)}; a client that sets none is the
	 * {@link #DEFAULT_AGENT}. The response context always carries the turn's agent.
	 */
	public static final String AGENT = "mantle.agent";

	/**
	 * The agent of a {@code ChatClient} that names none. It runs the hooks without
	 * {@link io.mantlehooks.annotation.ForAgent}, and the hooks scoped to
	 * {@code @ForAgent("default")}.
	 */
	public static final String DEFAULT_AGENT = "default";

	/** Advisor param: the approval id of a paused batch to run. */
	public static final String APPROVE = "mantle.approve";

	/** Advisor param: the approval id of a paused batch to decline. */
	public static final String DENY = "mantle.deny";

	/** Advisor param: why the user declined, told to the model. */
	public static final String DENY_REASON = "mantle.deny_reason";

	/**
	 * The longest reason for declining a paused batch, in characters: the reason goes to
	 * the model as the declined calls' result.
	 */
	public static final int MAX_DENY_REASON_LENGTH = 1_000;

	/**
	 * The order of the advisor that opens and closes a turn: outside chat memory
	 * ({@link Advisor#DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER}), so memory sees the turn's
	 * rewritten messages. Order an advisor of your own against it.
	 */
	public static final int TURN_ADVISOR_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	/**
	 * The order of the advisor that runs the tool loop: the default order of Spring AI's
	 * {@link ToolCallingAdvisor}, inside chat memory and outside retrieval.
	 */
	public static final int TOOL_LOOP_ADVISOR_ORDER = ToolCallingAdvisor.DEFAULT_ORDER;

	/**
	 * The order of the advisor around each model call: just inside Spring AI's model
	 * advisors, which sit at {@link Ordered#LOWEST_PRECEDENCE}.
	 */
	public static final int MODEL_CALL_ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1;

	private MantleHooks() {
	}

	/**
	 * Return an advisor spec customizer that sets the turn's sender id and channel.
	 * @param senderId the conversation or user id
	 * @param channel the channel the message came in on
	 * @return the customizer to pass to {@code ChatClientRequestSpec.advisors(...)}
	 */
	public static Consumer<ChatClient.AdvisorSpec> identity(String senderId, Channel channel) {
		return identity(senderId, channel, Map.of());
	}

	/**
	 * Return an advisor spec customizer that sets the turn's sender id, channel and call
	 * metadata.
	 * @param senderId the conversation or user id
	 * @param channel the channel the message came in on
	 * @param call telephony or session metadata
	 * @return the customizer to pass to {@code ChatClientRequestSpec.advisors(...)}
	 */
	public static Consumer<ChatClient.AdvisorSpec> identity(String senderId, Channel channel,
			Map<String, Object> call) {
		Assert.notNull(senderId, "'senderId' must not be null");
		Assert.notNull(channel, "'channel' must not be null");
		Assert.notNull(call, "'call' must not be null");
		Map<String, Object> callCopy = JsonValues.copyMap(call);
		return (spec) -> spec.param(SENDER_ID, senderId).param(CHANNEL, channel).param(CALL, callCopy);
	}

	/**
	 * Return an advisor spec customizer that names the agent of a turn: the hooks of that
	 * agent run in it (those scoped to it with {@link io.mantlehooks.annotation.ForAgent}
	 * and those without). Usually given once, to the client's builder: <pre class="code">
	 * ChatClient support = builder.defaultAdvisors(MantleHooks.agent("support")).build();
	 * </pre> A call made from inside a turn (a sub-agent called from a tool) runs its own
	 * agent's hooks, or the enclosing turn's agent's when its client names none.
	 * @param name the agent's name: 1 to 64 letters, digits, {@code .}, {@code _} or
	 * {@code -}
	 * @return the customizer to pass to {@code defaultAdvisors(...)} or
	 * {@code advisors(...)}
	 * @throws IllegalArgumentException when the name is not valid
	 */
	public static Consumer<ChatClient.AdvisorSpec> agent(String name) {
		String agent = AgentNames.check(name);
		return (spec) -> spec.param(AGENT, agent);
	}

	/**
	 * Return an advisor spec customizer that approves a paused tool-call batch: the turn
	 * runs the stored calls exactly as they were stored (the tool-call hooks do not run
	 * again), then the model answers with their results. Send it in the same conversation
	 * (same conversation or sender id) as the turn that paused, on any instance; the
	 * user's message, if any, is recorded but the model resumes the paused exchange.
	 * @param approvalId the {@link #APPROVAL_ID} of the paused turn
	 * @return the customizer to pass to {@code ChatClientRequestSpec.advisors(...)}
	 */
	public static Consumer<ChatClient.AdvisorSpec> approve(String approvalId) {
		Assert.hasText(approvalId, "'approvalId' must not be empty");
		return (spec) -> spec.param(APPROVE, approvalId);
	}

	/**
	 * Return an advisor spec customizer that declines a paused tool-call batch: no tool
	 * runs; the model is told the user declined, and why, and answers.
	 * @param approvalId the {@link #APPROVAL_ID} of the paused turn
	 * @param reason why the user declined, told to the model; at most
	 * {@value #MAX_DENY_REASON_LENGTH} characters
	 * @return the customizer to pass to {@code ChatClientRequestSpec.advisors(...)}
	 */
	public static Consumer<ChatClient.AdvisorSpec> deny(String approvalId, String reason) {
		Assert.hasText(approvalId, "'approvalId' must not be empty");
		Assert.notNull(reason, "'reason' must not be null");
		Assert.isTrue(reason.length() <= MAX_DENY_REASON_LENGTH, () -> "'reason' must be at most "
				+ MAX_DENY_REASON_LENGTH + " characters (was " + reason.length() + ")");
		return (spec) -> spec.param(DENY, approvalId).param(DENY_REASON, reason);
	}

}
