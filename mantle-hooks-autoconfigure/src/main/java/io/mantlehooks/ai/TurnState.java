package io.mantlehooks.ai;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.runtime.CallerContext;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.memory.ChatMemory;

/**
 * What the advisors of one turn share: the turn's identity, the model-call count, the
 * retry feedback waiting for the next model request, and the outcome to report. Lives in
 * the advisor context as one mutable object, because Spring AI copies the context map on
 * every tool-loop round and writes to the map itself would be lost.
 */
final class TurnState {

	static final String CONTEXT_KEY = "mantle.turn_state";

	/**
	 * The metadata key only the engine may set: a front end cannot mark its own message
	 * discarded to hide it from history, so the key is removed before hooks run.
	 */
	static final String DISCARDED = "discarded";

	private final String turnId;

	private final String senderId;

	private final Map<String, Object> call;

	private final Channel channel;

	private final String messageId;

	private final boolean voice;

	private final CallerContext caller;

	private final AtomicInteger modelCalls = new AtomicInteger();

	private volatile @Nullable String feedback;

	private volatile @Nullable String outcome;

	private volatile @Nullable String reason;

	private TurnState(String senderId, Map<String, Object> call, Channel channel, String messageId, boolean voice,
			CallerContext caller) {
		this.caller = caller;
		this.turnId = UUID.randomUUID().toString();
		this.senderId = senderId;
		this.call = call;
		this.channel = channel;
		this.messageId = messageId;
		this.voice = voice;
	}

	/**
	 * Return the state of the request's turn, creating (and storing) it when the request
	 * has none, so each advisor also works on its own.
	 */
	static TurnState of(ChatClientRequest request) {
		Object existing = request.context().get(CONTEXT_KEY);
		if (existing instanceof TurnState state) {
			return state;
		}
		TurnState state = fromParams(request.context(), CallerContext.capture());
		request.context().put(CONTEXT_KEY, state);
		return state;
	}

	/**
	 * Create the state of a new turn from the advisor params.
	 * @param context the advisor context
	 * @param caller the caller's thread context, restored wherever the turn's hooks run
	 */
	static TurnState fromParams(Map<String, @Nullable Object> context, CallerContext caller) {
		Object sender = context.get(MantleHooks.SENDER_ID);
		if (!(sender instanceof String) || ((String) sender).isEmpty()) {
			Object conversation = context.get(ChatMemory.CONVERSATION_ID);
			sender = (conversation != null) ? conversation.toString() : "";
		}
		Object channel = context.get(MantleHooks.CHANNEL);
		Object call = context.get(MantleHooks.CALL);
		Object messageId = context.get(MantleHooks.MESSAGE_ID);
		Object voice = context.get(MantleHooks.VOICE);
		@SuppressWarnings("unchecked")
		Map<String, Object> callMap = (call instanceof Map<?, ?> map) ? (Map<String, Object>) map : Map.of();
		return new TurnState((String) sender, callMap, withoutDiscardedFlag(channel),
				(messageId != null) ? messageId.toString() : "",
				Boolean.TRUE.equals(voice) || (voice instanceof String text && Boolean.parseBoolean(text)), caller);
	}

	private static Channel withoutDiscardedFlag(@Nullable Object value) {
		Channel channel = (value instanceof Channel given) ? given
				: (value instanceof String name) ? Channel.of(name) : Channel.none();
		if (!channel.metadata().containsKey(DISCARDED)) {
			return channel;
		}
		Map<String, Object> metadata = new LinkedHashMap<>(channel.metadata());
		metadata.remove(DISCARDED);
		return new Channel(channel.name(), metadata);
	}

	CallerContext caller() {
		return this.caller;
	}

	String turnId() {
		return this.turnId;
	}

	String senderId() {
		return this.senderId;
	}

	Map<String, Object> call() {
		return this.call;
	}

	Channel channel() {
		return this.channel;
	}

	String messageId() {
		return this.messageId;
	}

	boolean voice() {
		return this.voice;
	}

	/**
	 * Count a model call.
	 * @return the call's number in this turn, starting at 1
	 */
	int nextModelCall() {
		return this.modelCalls.incrementAndGet();
	}

	int modelCalls() {
		return this.modelCalls.get();
	}

	void retryWith(String feedback) {
		this.feedback = feedback;
	}

	/**
	 * Take the retry feedback: it belongs to the next model request only.
	 */
	@Nullable String takeFeedback() {
		String taken = this.feedback;
		this.feedback = null;
		return taken;
	}

	/**
	 * Record why the turn's reply is not the model's; the first outcome of a turn is the
	 * one reported (a rejected fallback does not hide the original rejection).
	 */
	synchronized void outcome(String outcome, String reason) {
		if (this.outcome == null) {
			this.outcome = outcome;
			this.reason = reason;
		}
	}

	@Nullable String outcome() {
		return this.outcome;
	}

	@Nullable String reason() {
		return this.reason;
	}

}
