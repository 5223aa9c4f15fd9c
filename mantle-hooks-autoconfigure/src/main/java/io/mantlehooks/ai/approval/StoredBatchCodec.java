package io.mantlehooks.ai.approval;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.MantleHooks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Writes a {@link StoredBatch} as JSON for an approval store, and reads it back. Messages
 * keep their type, text, tool calls and results, and the metadata values JSON can hold;
 * media attached to user messages is not stored (a warning says so).
 */
final class StoredBatchCodec {

	private static final Log logger = LogFactory.getLog(StoredBatchCodec.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** Set by Spring AI on every message; the builders set it again. */
	private static final String MESSAGE_TYPE = "messageType";

	private StoredBatchCodec() {
	}

	/**
	 * Write a batch.
	 * @param batch the batch
	 * @return its JSON text
	 */
	static String write(StoredBatch batch) {
		return write(batch, MantleHooks.DEFAULT_AGENT);
	}

	/**
	 * Write a batch paused by a turn of an agent.
	 * @param batch the batch
	 * @param agent the agent whose turn paused it
	 * @return its JSON text
	 */
	static String write(StoredBatch batch, String agent) {
		Map<String, Object> json = new LinkedHashMap<>();
		if (!MantleHooks.DEFAULT_AGENT.equals(agent)) {
			// absent for the default agent: what batches stored before agents read as
			json.put("agent", agent);
		}
		json.put("iteration", batch.iteration());
		json.put("history", batch.history().stream().map(StoredBatchCodec::message).toList());
		json.put("output", message(batch.output()));
		json.put("metadata", batch.metadata());
		if (batch.refusals().stream().anyMatch((refusal) -> refusal != null)) {
			// by position, null for a call that runs if approved (BatchCalls leaves
			// the others out of what an approval lists)
			json.put("refusals", batch.refusals());
		}
		return JSON.writeValueAsString(json);
	}

	/**
	 * Read a batch.
	 * @param text what {@link #write} wrote
	 * @return the batch
	 * @throws IllegalArgumentException when the text is no stored batch
	 */
	@SuppressWarnings("unchecked")
	static StoredBatch read(String text) {
		try {
			Map<String, Object> json = JSON.readValue(text, Map.class);
			List<Message> history = new ArrayList<>();
			for (Object message : (List<Object>) json.get("history")) {
				history.add(message((Map<String, Object>) message));
			}
			AssistantMessage output = (AssistantMessage) message((Map<String, Object>) json.get("output"));
			List<Map<String, Object>> metadata = (List<Map<String, Object>>) json.get("metadata");
			List<String> refusals = (List<String>) json.getOrDefault("refusals", List.of());
			return new StoredBatch(history, output, metadata, ((Number) json.get("iteration")).intValue(), refusals);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Not a stored tool-call batch", ex);
		}
	}

	private static Map<String, Object> message(Message message) {
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("type", message.getMessageType().name());
		json.put("text", message.getText());
		json.put("metadata", jsonMetadata(message.getMetadata()));
		if (message instanceof UserMessage user && !user.getMedia().isEmpty()) {
			logger.warn("A user message with media is part of a tool-call batch paused for approval; its "
					+ user.getMedia().size() + " media are not stored and the resumed turn goes on without them");
		}
		if (message instanceof AssistantMessage assistant) {
			json.put("toolCalls",
					assistant.getToolCalls()
						.stream()
						.map((call) -> Map.of("id", call.id(), "type", call.type(), "name", call.name(), "arguments",
								call.arguments()))
						.toList());
		}
		if (message instanceof ToolResponseMessage tool) {
			json.put("responses",
					tool.getResponses()
						.stream()
						.map((response) -> Map.of("id", response.id(), "name", response.name(), "responseData",
								response.responseData()))
						.toList());
		}
		return json;
	}

	@SuppressWarnings("unchecked")
	private static Message message(Map<String, Object> json) {
		String text = (String) json.get("text");
		Map<String, Object> metadata = (Map<String, Object>) json.getOrDefault("metadata", Map.of());
		return switch ((String) json.get("type")) {
			case "SYSTEM" -> SystemMessage.builder().text(text).metadata(metadata).build();
			case "USER" -> UserMessage.builder().text(text).metadata(metadata).build();
			case "ASSISTANT" -> AssistantMessage.builder()
				.content(text)
				.properties(metadata)
				.toolCalls(((List<Map<String, String>>) json.getOrDefault("toolCalls", List.of())).stream()
					.map((call) -> new AssistantMessage.ToolCall(call.get("id"), call.get("type"), call.get("name"),
							call.get("arguments")))
					.toList())
				.build();
			case "TOOL" -> ToolResponseMessage.builder()
				.responses(((List<Map<String, String>>) json.getOrDefault("responses", List.of())).stream()
					.map((response) -> new ToolResponseMessage.ToolResponse(response.get("id"), response.get("name"),
							response.get("responseData")))
					.toList())
				.metadata(metadata)
				.build();
			default -> throw new IllegalArgumentException("Unknown message type " + json.get("type"));
		};
	}

	/**
	 * The metadata values JSON can hold; Spring AI's own message-type entry is left out.
	 */
	private static Map<String, Object> jsonMetadata(Map<String, Object> metadata) {
		Map<String, Object> json = new LinkedHashMap<>();
		metadata.forEach((key, value) -> {
			if (!MESSAGE_TYPE.equals(key)) {
				try {
					json.put(key, JSON.readValue(JSON.writeValueAsString(value), Object.class));
				}
				catch (RuntimeException ex) {
					logger.debug("Metadata entry '" + key + "' of a paused batch's message is not JSON; not stored");
				}
			}
		});
		return json;
	}

}
