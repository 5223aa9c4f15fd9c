package io.mantlehooks.ai.chat;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * One model call of the tool loop: its number in the turn, the messages it sends, and the
 * retry feedback it carries (for this call only).
 *
 * @param iteration the model call's number in the turn, starting at 1
 * @param history the turn's messages so far (the prompt, then each batch's calls and
 * results)
 * @param feedback retry feedback for this call, else {@code null}
 */
record Round(int iteration, List<Message> history, @Nullable String feedback) {

	static Round first(ChatClientRequest request) {
		return new Round(1, request.prompt().getInstructions(), null);
	}

	/**
	 * Return the round after a batch ran.
	 */
	Round after(List<Message> next) {
		return new Round(this.iteration + 1, next, null);
	}

	/**
	 * Return the same prompt once more, with feedback: the response (and any batch it
	 * held) is discarded.
	 */
	Round retry(String retryFeedback) {
		return new Round(this.iteration + 1, this.history, retryFeedback);
	}

	/**
	 * Return the request of this round: the turn's request itself for the first round,
	 * otherwise the round's prompt and the turn's context with the round's keys.
	 */
	ChatClientRequest request(ChatClientRequest turnRequest) {
		if (this.iteration == 1 && this.feedback == null) {
			return turnRequest;
		}
		Prompt prompt = (turnRequest.prompt().getOptions() != null)
				? new Prompt(this.history, turnRequest.prompt().getOptions()) : new Prompt(this.history);
		Map<String, @Nullable Object> context = Rounds.context(turnRequest.context(), this.iteration, this.feedback);
		return new ChatClientRequest(prompt, context);
	}

}
