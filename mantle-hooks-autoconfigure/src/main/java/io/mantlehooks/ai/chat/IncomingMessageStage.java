package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.ai.turn.HookSteps;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.execution.HookRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * The start of a turn: the incoming-message hooks on the user's text, before chat memory
 * stores it. The turn goes on with the (rewritten) text, or ends right here with a reply
 * when a hook rejects the message or fails closed.
 */
final class IncomingMessageStage {

	private final HookRunner hooks;

	private final HookResponses responses;

	private final OutgoingTextStage outgoing;

	IncomingMessageStage(HookRunner hooks, HookResponses responses, OutgoingTextStage outgoing) {
		this.hooks = hooks;
		this.responses = responses;
		this.outgoing = outgoing;
	}

	Step<Start> start(Turn turn, ChatClientRequest request) {
		List<Message> messages = request.prompt().getInstructions();
		int userIndex = lastUserMessage(messages);
		if (userIndex < 0) {
			return Step.done(Start.proceed(request, null));
		}
		UserMessage original = (UserMessage) messages.get(userIndex);
		UserMessage message = withoutDiscardedFlag(original);
		if (!this.hooks.hasHooks(HookPoint.INCOMING_MESSAGE, turn.scope())) {
			return Step.done(
					Start.proceed(withUserMessage(request, messages, userIndex, original, message), message.getText()));
		}
		IncomingMessagePayload payload = turn.incomingMessage(message.getText());
		return HookSteps.run(this.hooks, HookPoint.INCOMING_MESSAGE, payload, turn).then((result) -> {
			if (result instanceof ModifyResult.Signalled<IncomingMessagePayload> signalled
					&& signalled.signal() instanceof HookRejection rejection) {
				return reject(turn, request, message, Outcome.rejected(rejection.reason()),
						rejection.responseMessage().orElse(null));
			}
			if (result instanceof ModifyResult.Failed<IncomingMessagePayload> failed) {
				// fail closed: treated as a rejection without a response name
				return reject(turn, request, message,
						Outcome.hookError(
								failed.failure().kind().name().toLowerCase() + " in " + failed.failure().hookName()),
						null);
			}
			String text = ((ModifyResult.Proceed<IncomingMessagePayload>) result).payload().text();
			UserMessage rewritten = text.equals(message.getText()) ? message : message.mutate().text(text).build();
			return Step.done(Start.proceed(withUserMessage(request, messages, userIndex, original, rewritten), text));
		});
	}

	private Step<Start> reject(Turn turn, ChatClientRequest request, UserMessage message, Outcome outcome,
			@Nullable String responseName) {
		return reply(turn, request, outcome, responseName, HookResponses.INCOMING_MESSAGE_REJECTED)
			.map((start) -> new Start(null, start.reply(), start.outcome(), message.getText(), true));
	}

	/**
	 * End the turn with a named reply, passed through the outgoing-text hooks.
	 * @param responseName the name a hook chose, may be {@code null}
	 * @param fallback the packaged name to use when that name resolves to nothing
	 */
	Step<Start> reply(Turn turn, ChatClientRequest request, Outcome outcome, @Nullable String responseName,
			String fallback) {
		String reply = this.responses.resolve(responseName, fallback);
		return this.outgoing.process(turn, reply).map((processed) -> {
			ChatClientResponse response = ChatResponses.textResponse(request,
					(processed.text() != null) ? processed.text() : "");
			if (processed.text() == null) {
				response = ChatResponses.withoutGenerations(response);
			}
			return Start.reply(response, outcome);
		});
	}

	private static ChatClientRequest withUserMessage(ChatClientRequest request, List<Message> messages, int index,
			UserMessage original, UserMessage message) {
		if (message == original) {
			return request;
		}
		List<Message> rewritten = new ArrayList<>(messages);
		rewritten.set(index, message);
		Prompt prompt = request.prompt().mutate().messages(rewritten).build();
		return new ChatClientRequest(prompt, request.context());
	}

	private static int lastUserMessage(List<Message> messages) {
		for (int i = messages.size() - 1; i >= 0; i--) {
			if (messages.get(i) instanceof UserMessage) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Only the engine may mark a message discarded: a {@code discarded} key that arrives
	 * with the message is removed before hooks run.
	 */
	private static UserMessage withoutDiscardedFlag(UserMessage message) {
		if (!message.getMetadata().containsKey(Turn.DISCARDED)) {
			return message;
		}
		Map<String, Object> metadata = new LinkedHashMap<>(message.getMetadata());
		metadata.remove(Turn.DISCARDED);
		return message.mutate().metadata(metadata).build();
	}

	/**
	 * How a turn starts: the request to go on with, or the reply that ends the turn.
	 *
	 * @param request the request to go on with, with the (rewritten) user message;
	 * {@code null} when the turn ends here
	 * @param reply the reply when the message was rejected, else {@code null}
	 * @param outcome why the turn ended here, else {@code null}
	 * @param userText the user's text as accepted (rewritten), or as sent when rejected;
	 * {@code null} when the request has no user message
	 * @param discarded whether the message was rejected: the user's text and the reply
	 * are set aside
	 */
	record Start(@Nullable ChatClientRequest request, @Nullable ChatClientResponse reply, @Nullable Outcome outcome,
			@Nullable String userText, boolean discarded) {

		static Start proceed(ChatClientRequest request, @Nullable String userText) {
			return new Start(request, null, null, userText, false);
		}

		static Start reply(ChatClientResponse reply, Outcome outcome) {
			return new Start(null, reply, outcome, null, false);
		}

	}

}
