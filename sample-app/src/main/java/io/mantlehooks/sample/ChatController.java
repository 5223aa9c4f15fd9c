package io.mantlehooks.sample;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.sample.ShopAssistant.Conversation;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;
import jakarta.servlet.http.HttpSession;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The chat API: one call per message ({@code POST /api/chat}), the same as server-sent
 * events for the chat page ({@code POST /api/chat/stream}: {@code token} events as the
 * reply streams, one marked {@code retracted} when it replaces what was shown, then
 * {@code done} or {@code failed}), approvals of paused tool calls, and the conversation's
 * transcript. The sender is the browser's {@link Visitors visitor} (its session cookie);
 * a conversation is its first visitor's.
 */
@RestController
@RequestMapping("/api")
class ChatController {

	private static final Logger logger = LoggerFactory.getLogger(ChatController.class);

	private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

	private static final int MAX_MESSAGE = 2000;

	private final ShopAssistant assistant;

	private final ObjectProvider<TranscriptStore> transcript;

	private final Visitors visitors;

	ChatController(ShopAssistant assistant, ObjectProvider<TranscriptStore> transcript, Visitors visitors) {
		this.assistant = assistant;
		this.transcript = transcript;
		this.visitors = visitors;
	}

	@PostMapping("/chat")
	ChatReply chat(@RequestBody ChatRequest request, HttpSession session) {
		String text = message(request.message());
		Conversation conversation = conversation(request.conversationId(), session, "rest");
		return ChatReply.of(this.assistant.answer(conversation, text));
	}

	/**
	 * The same turn as {@link #chat}, streamed as server-sent events. The message comes
	 * in the body, as in {@code POST /api/chat}: a query string ends up in access logs.
	 * @param request the conversation and the message
	 * @param session the visitor's session
	 * @return the turn's events
	 */
	@PostMapping(path = "/chat/stream", produces = "text/event-stream")
	Flux<ServerSentEvent<Map<String, Object>>> stream(@RequestBody ChatRequest request, HttpSession session) {
		String text = message(request.message());
		Conversation conversation = conversation(request.conversationId(), session, "web");
		Map<String, Object> last = new LinkedHashMap<>();
		return this.assistant.stream(conversation, text)
			.doOnNext((chunk) -> last.putAll(chunk.context()))
			.filter((chunk) -> retracted(chunk) || !text(chunk).isEmpty())
			.map((chunk) -> event("token", token(chunk)))
			.concatWith(Mono.fromSupplier(() -> event("done", done(last))))
			.onErrorResume((ex) -> {
				// the user gets a generic message; the log gets the reason
				logger.warn("Streamed turn for conversation {} failed", conversation.id(), ex);
				return Flux.just(event("failed", Map.of("text", "Sorry, something went wrong.")));
			});
	}

	@PostMapping("/approvals/{approvalId}")
	ChatReply decide(@PathVariable String approvalId, @RequestBody DecisionRequest request, HttpSession session) {
		requireId("approvalId", approvalId);
		requireId("conversationId", request.conversationId());
		String channel = (request.channel() != null) ? channel(request.channel()) : "rest";
		if (request.approve() == null) {
			throw new InvalidRequestException("'approve' must be true or false");
		}
		boolean approved = request.approve();
		String message = (request.message() != null) ? message(request.message())
				: (approved ? "Yes, go ahead." : "No, don't.");
		String reason = (request.reason() != null) ? request.reason() : "";
		if (reason.length() > MantleHooks.MAX_DENY_REASON_LENGTH) {
			throw new InvalidRequestException(
					"'reason' must be at most " + MantleHooks.MAX_DENY_REASON_LENGTH + " characters");
		}
		// only the conversation's visitor decides here; the library checks again that it
		// is the sender who paused the batch (mantle.hooks.approvals.decided-by=sender)
		Conversation conversation = conversation(request.conversationId(), session, channel);
		return ChatReply.of(this.assistant.decide(conversation, approvalId, approved, message, reason));
	}

	@GetMapping("/conversations/{conversationId}/transcript")
	List<TranscriptEntry> transcript(@PathVariable String conversationId, HttpSession session) {
		requireId("conversationId", conversationId);
		this.visitors.readIn(conversationId, this.visitors.visitor(session));
		TranscriptStore store = this.transcript.getIfAvailable();
		return (store != null) ? store.find(conversationId) : List.of();
	}

	/**
	 * The visitor's turn in a conversation that is theirs (or new, and now theirs).
	 * @param conversationId the conversation the request names
	 * @param session the visitor's session
	 * @param channel the channel's name
	 * @return the conversation and the visitor
	 */
	private Conversation conversation(@Nullable String conversationId, HttpSession session, String channel) {
		requireId("conversationId", conversationId);
		String visitor = this.visitors.visitor(session);
		this.visitors.writeIn(conversationId, visitor);
		return new Conversation(conversationId, visitor, channel);
	}

	private static String channel(String channel) {
		if (!channel.equals("web") && !channel.equals("rest")) {
			throw new InvalidRequestException("'channel' must be 'web' or 'rest'");
		}
		return channel;
	}

	private static void requireId(String name, @Nullable String value) {
		if (value == null || !ID.matcher(value).matches()) {
			throw new InvalidRequestException("'" + name + "' must be 1 to 64 letters, digits, '-' or '_'");
		}
	}

	private static String message(@Nullable String message) {
		if (message == null || message.isBlank()) {
			throw new InvalidRequestException("'message' must not be empty");
		}
		if (message.length() > MAX_MESSAGE) {
			throw new InvalidRequestException("'message' must be at most " + MAX_MESSAGE + " characters");
		}
		return message;
	}

	private static String text(ChatClientResponse chunk) {
		ChatResponse response = chunk.chatResponse();
		if (response == null || response.getResult() == null) {
			return "";
		}
		String text = response.getResult().getOutput().getText();
		return (text != null) ? text : "";
	}

	/**
	 * A token event's data: the chunk's text, and {@code retracted: true} when that text
	 * replaces everything the page showed of the reply (an outgoing-text hook rejected a
	 * later sentence; the text is the rejection's reply).
	 * @param chunk a chunk of the streamed reply
	 * @return the event's data
	 */
	private static Map<String, Object> token(ChatClientResponse chunk) {
		return retracted(chunk) ? Map.of("text", text(chunk), "retracted", true) : Map.of("text", text(chunk));
	}

	private static boolean retracted(ChatClientResponse chunk) {
		return Boolean.TRUE.equals(chunk.context().get(MantleHooks.RETRACTED));
	}

	private static Map<String, Object> done(Map<String, Object> context) {
		Map<String, Object> done = new LinkedHashMap<>();
		done.put("outcome", context.getOrDefault(MantleHooks.OUTCOME, "completed"));
		done.put("turnId", context.get(MantleHooks.TURN_ID));
		if (context.get(MantleHooks.APPROVAL_ID) != null) {
			done.put("approvalId", context.get(MantleHooks.APPROVAL_ID));
		}
		return done;
	}

	private static ServerSentEvent<Map<String, Object>> event(String name, Map<String, Object> data) {
		return ServerSentEvent.builder(data).event(name).build();
	}

	/**
	 * One message; the sender is the session's visitor.
	 *
	 * @param conversationId the conversation
	 * @param message the text
	 */
	record ChatRequest(@Nullable String conversationId, @Nullable String message) {

	}

	/**
	 * A decision on a paused tool call; the decider is the session's visitor.
	 *
	 * @param conversationId the conversation the approval belongs to
	 * @param approve {@code true} to run the calls, {@code false} to decline
	 * @param message the user's words, a default when absent
	 * @param reason why the user declined
	 * @param channel {@code web} or {@code rest}
	 */
	record DecisionRequest(@Nullable String conversationId, @Nullable Boolean approve, @Nullable String message,
			@Nullable String reason, @Nullable String channel) {

	}

	/**
	 * The answer to a message.
	 *
	 * @param reply what the user sees
	 * @param outcome {@code completed}, {@code rejected}, {@code awaiting_approval}, ...
	 * @param approvalId the paused batch to approve, when awaiting approval
	 * @param turnId the turn's id
	 */
	record ChatReply(String reply, String outcome, @Nullable String approvalId, @Nullable String turnId) {

		static ChatReply of(ChatClientResponse response) {
			Map<String, Object> context = response.context();
			return new ChatReply(text(response), (String) context.getOrDefault(MantleHooks.OUTCOME, "completed"),
					(String) context.get(MantleHooks.APPROVAL_ID), (String) context.get(MantleHooks.TURN_ID));
		}

	}

}
