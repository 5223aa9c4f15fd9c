package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.List;

import io.mantlehooks.ModelToolCall;
import io.mantlehooks.ai.turn.ToolArguments;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;

/**
 * The text and tool calls of a response streamed live, collected chunk by chunk for the
 * observers that see it once it is complete; lighter than aggregating whole responses.
 */
final class StreamedResponse {

	private final StringBuilder text = new StringBuilder();

	private final List<AssistantMessage.ToolCall> toolCalls = new ArrayList<>();

	private boolean hasText;

	synchronized void add(ChatClientResponse chunk) {
		AssistantMessage output = ChatResponses.output(chunk.chatResponse());
		if (output == null) {
			return;
		}
		if (output.getText() != null) {
			this.text.append(output.getText());
			this.hasText = true;
		}
		if (output.hasToolCalls()) {
			this.toolCalls.addAll(output.getToolCalls());
		}
	}

	synchronized @Nullable String text() {
		return this.hasText ? this.text.toString() : null;
	}

	synchronized List<ModelToolCall> toolCalls() {
		return this.toolCalls.stream()
			.map((call) -> new ModelToolCall(call.id(), call.name(), ToolArguments.parse(call.arguments()),
					call.type()))
			.toList();
	}

}
