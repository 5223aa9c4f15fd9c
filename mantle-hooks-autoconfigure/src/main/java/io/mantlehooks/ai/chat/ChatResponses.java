package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.mantlehooks.ModelToolCall;
import io.mantlehooks.ai.turn.ToolArguments;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/**
 * Reads and rewrites the parts of Spring AI responses that hooks see: the assistant text
 * and the tool calls of the first generation.
 */
final class ChatResponses {

	private ChatResponses() {
	}

	static @Nullable AssistantMessage output(@Nullable ChatResponse response) {
		if (response == null || response.getResults().isEmpty()) {
			return null;
		}
		return response.getResult().getOutput();
	}

	static @Nullable String text(@Nullable ChatResponse response) {
		AssistantMessage output = output(response);
		return (output != null) ? output.getText() : null;
	}

	/**
	 * Whether the model asked for tools, as {@link ChatResponse#hasToolCalls()} answers,
	 * without the stream it builds: a streamed turn asks this of every chunk.
	 */
	static boolean hasToolCalls(@Nullable ChatResponse response) {
		if (response == null) {
			return false;
		}
		List<Generation> results = response.getResults();
		for (int i = 0; i < results.size(); i++) {
			AssistantMessage output = results.get(i).getOutput();
			if (output != null && output.hasToolCalls()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return a response that answers with the given text only: the engine's own replies
	 * (rejections, fallbacks) and what remains when a reply was dropped.
	 */
	static ChatClientResponse textResponse(ChatClientRequest request, String text) {
		Generation generation = new Generation(new AssistantMessage(text),
				ChatGenerationMetadata.builder().finishReason("STOP").build());
		return new ChatClientResponse(new ChatResponse(List.of(generation)), request.context());
	}

	/**
	 * Return the response with the first generation's text replaced, keeping everything
	 * else (metadata, tool calls, other generations).
	 */
	static ChatClientResponse withText(ChatClientResponse response, String text) {
		ChatResponse chatResponse = response.chatResponse();
		AssistantMessage output = output(chatResponse);
		if (chatResponse == null || output == null) {
			return response;
		}
		AssistantMessage rewritten = output.mutate().content(text).build();
		return new ChatClientResponse(withFirstOutput(chatResponse, rewritten), response.context());
	}

	/**
	 * Return the response with no generation at all: the reply was dropped, so there is
	 * nothing to send and nothing for chat memory to store.
	 */
	static ChatClientResponse withoutGenerations(ChatClientResponse response) {
		return withGenerations(response, List.of());
	}

	/**
	 * Return the response with the given generations instead of the model's, keeping its
	 * metadata (usage, model).
	 */
	static ChatClientResponse withGenerations(ChatClientResponse response, List<Generation> generations) {
		ChatResponse chatResponse = response.chatResponse();
		ChatResponse.Builder builder = (chatResponse != null) ? ChatResponse.builder().from(chatResponse)
				: ChatResponse.builder();
		return new ChatClientResponse(builder.generations(generations).build(), response.context());
	}

	static ChatResponse withFirstOutput(ChatResponse chatResponse, AssistantMessage output) {
		List<Generation> generations = new ArrayList<>(chatResponse.getResults());
		Generation first = generations.get(0);
		generations.set(0, new Generation(output, first.getMetadata()));
		return ChatResponse.builder().from(chatResponse).generations(generations).build();
	}

	static List<ModelToolCall> toolCalls(@Nullable AssistantMessage output) {
		if (output == null || !output.hasToolCalls()) {
			return List.of();
		}
		return output.getToolCalls()
			.stream()
			.map((call) -> new ModelToolCall(call.id(), call.name(), ToolArguments.parse(call.arguments()),
					call.type()))
			.toList();
	}

	/**
	 * Convert rewritten tool calls back. A call whose arguments the hook left as they
	 * were keeps the model's original JSON text, so nothing is lost in a round trip.
	 */
	static List<AssistantMessage.ToolCall> toSpringToolCalls(List<ModelToolCall> calls,
			List<AssistantMessage.ToolCall> original) {
		Map<String, AssistantMessage.ToolCall> byId = new LinkedHashMap<>();
		original.forEach((call) -> byId.putIfAbsent(call.id(), call));
		return calls.stream().map((call) -> {
			AssistantMessage.ToolCall model = byId.get(call.id());
			String arguments = (model != null
					&& Objects.equals(ToolArguments.parse(model.arguments()), call.toolArgs())) ? model.arguments()
							: ToolArguments.toJson(call.toolArgs());
			return new AssistantMessage.ToolCall(call.id(), call.type(), call.toolName(), arguments);
		}).toList();
	}

}
