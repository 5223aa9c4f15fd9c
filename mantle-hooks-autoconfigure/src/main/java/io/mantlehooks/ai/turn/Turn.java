package io.mantlehooks.ai.turn;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import io.mantlehooks.AgentNames;
import io.mantlehooks.Channel;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Passage;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.message.FrozenMessageCache;
import io.mantlehooks.message.FrozenMessages;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.HookScope;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.Message;

/**
 * The engine-owned identity of one turn: its id, the sender, call metadata, channel,
 * message id and voice flag, and the caller's context that hooks run in. Immutable (but
 * for the frozen messages of its latest model call, kept so a history is frozen once): it
 * is created once by the outermost hook advisor and passed down the advisor chain in the
 * request context ({@link #CONTEXT_KEY}), to tools and retrievers as the current turn.
 * <p>
 * A turn is <em>nested</em> when a {@code ChatClient} call is made while another turn is
 * running (a RAG query transformer, a sub-agent in a tool): it keeps the enclosing turn's
 * identity, and only the points of the model call and tool loop run for it.
 */
public final class Turn {

	/** The request-context key of the turn. Internal: never part of a final response. */
	public static final String CONTEXT_KEY = "mantle.turn";

	/**
	 * The metadata key only the engine may set: a front end cannot mark its own message
	 * discarded to hide it from history, so the key is removed before hooks run.
	 */
	public static final String DISCARDED = "discarded";

	private final String id;

	private final String senderId;

	private final String conversationId;

	private final Map<String, Object> call;

	private final Channel channel;

	private final String messageId;

	private final boolean voice;

	private final boolean nested;

	private final HookScope scope;

	/** The frozen messages of this turn's latest model call. */
	private volatile @Nullable List<Message> frozenPrompt;

	private Turn(String id, String senderId, String conversationId, Map<String, Object> call, Channel channel,
			String messageId, boolean voice, boolean nested, HookScope scope) {
		this.id = id;
		this.senderId = senderId;
		this.conversationId = conversationId;
		this.call = call;
		this.channel = channel;
		this.messageId = messageId;
		this.voice = voice;
		this.nested = nested;
		// a detached identity (work outside any turn) makes nothing current on hook
		// threads: a model call from such a hook is outside a turn too
		this.scope = id.isEmpty() ? scope : scope.withBinding(this::currentInside);
	}

	/**
	 * Start a turn from the advisor params of a request: sender id (the conversation id
	 * when absent), channel (a {@link Channel} or a name), call metadata, message id,
	 * voice flag and agent.
	 * @param context the advisor context
	 * @param caller the caller's thread context, restored wherever the turn's hooks run
	 * @return the new turn
	 * @throws IllegalArgumentException when the call metadata is not a map, or nests
	 * deeper than payloads accept ({@link io.mantlehooks.PayloadTooDeepException}), or
	 * the agent is not a valid name
	 */
	public static Turn start(Map<String, @Nullable Object> context, CallerContext caller) {
		Object conversation = context.get(ChatMemory.CONVERSATION_ID);
		Object sender = context.get(MantleHooks.SENDER_ID);
		if (!(sender instanceof String) || ((String) sender).isEmpty()) {
			sender = (conversation != null) ? conversation.toString() : "";
		}
		String conversationId = (conversation != null && !conversation.toString().isEmpty()) ? conversation.toString()
				: (String) sender;
		Object messageId = context.get(MantleHooks.MESSAGE_ID);
		Object voice = context.get(MantleHooks.VOICE);
		String id = newId();
		return new Turn(id, (String) sender, conversationId, callOf(context.get(MantleHooks.CALL)),
				channelOf(context.get(MantleHooks.CHANNEL)), (messageId != null) ? messageId.toString() : "",
				Boolean.TRUE.equals(voice) || (voice instanceof String text && Boolean.parseBoolean(text)), false,
				HookScope.of(id, caller).withAgent(agentOf(context.get(MantleHooks.AGENT), MantleHooks.DEFAULT_AGENT)));
	}

	/**
	 * Return the identity used for work outside any turn (a knowledge search made outside
	 * a chat turn): no id, sender, call or channel.
	 * @param caller the caller's context
	 * @return the detached turn
	 */
	public static Turn detached(CallerContext caller) {
		return new Turn("", "", "", Map.of(), Channel.none(), "", false, false, HookScope.of("", caller));
	}

	/**
	 * Return the turn a request belongs to, from its context.
	 * @param request the request
	 * @return the turn, or {@code null} when no hook advisor started one
	 */
	public static @Nullable Turn of(ChatClientRequest request) {
		return (request.context().get(CONTEXT_KEY) instanceof Turn turn) ? turn : null;
	}

	/**
	 * Return this turn observed: its hooks' observations become children of the given
	 * one.
	 * @param observation the turn's {@code mantle.turn} observation
	 * @return the observed turn
	 */
	public Turn observed(Observation observation) {
		return new Turn(this.id, this.senderId, this.conversationId, this.call, this.channel, this.messageId,
				this.voice, this.nested, this.scope.withObservation(observation));
	}

	/**
	 * Return a nested turn inside this one: the same identity, marked nested.
	 * @return the nested turn
	 */
	public Turn nested() {
		return this.nested ? this : new Turn(this.id, this.senderId, this.conversationId, this.call, this.channel,
				this.messageId, this.voice, true, this.scope);
	}

	/**
	 * Return a nested turn inside this one for a request made while this turn runs (a
	 * sub-agent called from a tool): the same identity, marked nested, running the hooks
	 * of the agent the request names, or of this turn's agent when it names none.
	 * @param context the nested request's context
	 * @return the nested turn
	 * @throws IllegalArgumentException when the request names an invalid agent
	 */
	public Turn nested(Map<String, @Nullable Object> context) {
		String agent = agentOf(context.get(MantleHooks.AGENT), agent());
		if (agent.equals(agent())) {
			return nested();
		}
		return new Turn(this.id, this.senderId, this.conversationId, this.call, this.channel, this.messageId,
				this.voice, true, this.scope.withAgent(agent));
	}

	/**
	 * Return the agent whose hooks run in this turn.
	 * @return the agent's name, {@link MantleHooks#DEFAULT_AGENT} when the client named
	 * none
	 */
	public String agent() {
		return this.scope.agent();
	}

	private static String agentOf(@Nullable Object value, String otherwise) {
		if (value == null) {
			return otherwise;
		}
		if (!(value instanceof String name)) {
			throw new IllegalArgumentException("Advisor param '" + MantleHooks.AGENT + "' must be a String, but is a "
					+ value.getClass().getName());
		}
		return AgentNames.check(name);
	}

	/**
	 * Return the turn a call made from inside one of this turn's hooks belongs to: the
	 * same identity, nested, and without that hook, so a hook never runs for its own
	 * model calls (a judge at model-response does not judge its own verdict).
	 * @param hookName the hook the call is made from
	 * @return the nested turn
	 */
	public Turn insideHook(String hookName) {
		return new Turn(this.id, this.senderId, this.conversationId, this.call, this.channel, this.messageId,
				this.voice, true, this.scope.skipping(hookName));
	}

	/** What a hook's thread makes current while one of this turn's hooks runs. */
	private HookScope.Binding.Bound currentInside(String hookName) {
		CurrentTurn.Scope current = CurrentTurn.openInside(this, hookName);
		return current::close;
	}

	/**
	 * A random (version 4) UUID without {@code SecureRandom}: turn ids need to be unique,
	 * not unguessable.
	 */
	private static String newId() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long most = (random.nextLong() & 0xFFFFFFFFFFFF0FFFL) | 0x0000000000004000L;
		long least = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
		return new UUID(most, least).toString();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> callOf(@Nullable Object value) {
		if (value == null) {
			return Map.of();
		}
		if (!(value instanceof Map<?, ?> map)) {
			throw new IllegalArgumentException(
					"Advisor param '" + MantleHooks.CALL + "' must be a Map, but is a " + value.getClass().getName());
		}
		// copied (and checked) once: the payloads of the turn keep the copy as it is
		return new TurnStartedPayload(false, "", "", (Map<String, Object>) map, Channel.none()).call();
	}

	private static Channel channelOf(@Nullable Object value) {
		Channel channel = (value instanceof Channel given) ? given
				: (value instanceof String name) ? Channel.of(name) : Channel.none();
		if (!channel.metadata().containsKey(DISCARDED)) {
			return channel;
		}
		Map<String, Object> metadata = new LinkedHashMap<>(channel.metadata());
		metadata.remove(DISCARDED);
		return new Channel(channel.name(), metadata);
	}

	public String id() {
		return this.id;
	}

	public String senderId() {
		return this.senderId;
	}

	/**
	 * Return the conversation: {@code ChatMemory.CONVERSATION_ID} when the request gave
	 * one, else the sender id.
	 * @return the conversation id, {@code ""} when neither is known
	 */
	public String conversationId() {
		return this.conversationId;
	}

	public Map<String, Object> call() {
		return this.call;
	}

	public Channel channel() {
		return this.channel;
	}

	public String messageId() {
		return this.messageId;
	}

	public boolean voice() {
		return this.voice;
	}

	/**
	 * Return whether this turn runs inside another (a {@code ChatClient} call made while
	 * a turn was running).
	 * @return whether the turn is nested
	 */
	public boolean isNested() {
		return this.nested;
	}

	/**
	 * Return the scope the turn's hooks run in.
	 * @return the hook scope
	 */
	public HookScope scope() {
		return this.scope;
	}

	public TurnStartedPayload turnStarted() {
		return new TurnStartedPayload(this.voice, this.id, this.senderId, this.call, this.channel);
	}

	public TurnFinishedPayload turnFinished(TurnStatus status) {
		return new TurnFinishedPayload(status, this.id, this.senderId, this.call, this.channel);
	}

	public IncomingMessagePayload incomingMessage(String text) {
		return new IncomingMessagePayload(text, this.messageId, this.senderId, this.call, this.channel);
	}

	/**
	 * Return the payload of one model call. Its messages are frozen once per turn, each
	 * when first read: a message the turn's previous model call had at the same position
	 * is not frozen again (the tool loop sends the history again with each call), nor is
	 * a message kept frozen from an earlier turn while it matches its source (chat memory
	 * hands a conversation's history out as the same instances every turn).
	 * @param messages the prompt's messages
	 * @param toolNames the offered tools
	 * @param iteration the model call's number in the turn
	 * @param kept the application's frozen messages kept across turns, {@code null} for
	 * none
	 * @return the payload
	 */
	public ModelRequestPayload modelRequest(List<Message> messages, List<String> toolNames, int iteration,
			@Nullable FrozenMessageCache kept) {
		List<Message> frozen = FrozenMessages.freeze(messages, this.frozenPrompt, kept);
		// model calls of one turn follow each other; were two to race, one would only
		// freeze some messages again
		this.frozenPrompt = frozen;
		return new ModelRequestPayload(frozen, ModelSettings.empty(), toolNames, iteration, this.senderId, this.call,
				this.channel);
	}

	public ModelResponsePayload modelResponse(@Nullable String text, List<ModelToolCall> toolCalls,
			@Nullable Long latencyMs) {
		return new ModelResponsePayload(text, toolCalls, latencyMs, this.senderId, this.call, this.channel);
	}

	public ToolCallPayload toolCall(String toolName, Map<String, Object> arguments) {
		return new ToolCallPayload(toolName, arguments, Map.of(), Map.of(), this.senderId, this.call, this.channel);
	}

	public ToolResultPayload toolResult(String toolName, Map<String, Object> arguments, String value, boolean isError) {
		return new ToolResultPayload(toolName, arguments, value, isError, this.senderId, this.call, this.channel);
	}

	public KnowledgeQueryPayload knowledgeQuery(String query) {
		return new KnowledgeQueryPayload(query, this.senderId, this.call, this.channel);
	}

	public KnowledgeResultsPayload knowledgeResults(String query, List<Passage> passages) {
		return new KnowledgeResultsPayload(query, passages, this.senderId, this.call, this.channel);
	}

	public OutgoingTextPayload outgoingText(String text) {
		return new OutgoingTextPayload(text, this.voice, this.senderId, this.call, this.channel);
	}

	/**
	 * Return the payload of one segment of a reply streamed sentence by sentence.
	 * @param text the segment's text
	 * @param segment the segment's number in the reply, from 0
	 * @param finalSegment whether the segment ends the reply
	 * @return the payload
	 */
	public OutgoingTextPayload outgoingSegment(String text, int segment, boolean finalSegment) {
		return new OutgoingTextPayload(text, this.voice, this.senderId, this.call, this.channel, segment, finalSegment);
	}

	@Override
	public String toString() {
		return "Turn[id=" + this.id + ", sender=" + this.senderId + ", channel=" + this.channel.name()
				+ (this.nested ? ", nested" : "") + "]";
	}

}
