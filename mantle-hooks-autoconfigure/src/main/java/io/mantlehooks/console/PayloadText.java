package io.mantlehooks.console;

import java.util.stream.Collectors;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import org.jspecify.annotations.Nullable;

/**
 * The text of a payload as the console shows it before and after a modify hook: one line
 * per message, call or passage, so a line-by-line diff shows what the hook changed.
 */
final class PayloadText {

	/** Bounds the recorder: at most two texts of this length per invocation. */
	private static final int MAX_LENGTH = 2000;

	/** The longest preview of a user's message in the turn list. */
	static final int PREVIEW_LENGTH = 60;

	private PayloadText() {
	}

	static @Nullable String of(@Nullable Object payload) {
		String text = text(payload);

		return (text != null && text.length() > MAX_LENGTH) ? text.substring(0, MAX_LENGTH) + "…" : text;
	}

	/**
	 * Return the first words of a text on one line: whitespace runs become one space, and
	 * a text longer than {@value #PREVIEW_LENGTH} characters is cut after its last whole
	 * word that fits (or within a word longer than that) and ends with "…".
	 */
	static @Nullable String firstWords(@Nullable String text) {
		if (text == null) {
			return null;
		}
		String line = text.strip().replaceAll("\\s+", " ");
		if (line.isEmpty()) {
			return null;
		}
		if (line.length() <= PREVIEW_LENGTH) {
			return line;
		}
		int cut = line.lastIndexOf(' ', PREVIEW_LENGTH - 1);
		String words = (cut > 0) ? line.substring(0, cut) : line.substring(0, PREVIEW_LENGTH - 1);
		return words + "…";
	}

	private static @Nullable String text(@Nullable Object payload) {
		if (payload instanceof IncomingMessagePayload message) {
			return message.text();
		}
		if (payload instanceof ModelRequestPayload request) {
			return request.messages()
				.stream()
				.map((message) -> message.getMessageType().getValue() + ": " + message.getText())
				.collect(Collectors.joining("\n"));
		}
		if (payload instanceof ModelResponsePayload response) {
			return ((response.text() != null) ? response.text() : "") + response.toolCalls()
				.stream()
				.map((call) -> "\n" + call.toolName() + " " + call.toolArgs())
				.collect(Collectors.joining());
		}
		if (payload instanceof ToolCallPayload call) {
			// a refused call shows its refusal, so the diff says the hook refused it
			String text = call.toolName() + " " + call.arguments();
			return (call.refusal() != null) ? text + "\nrefused: " + call.refusal() : text;
		}
		if (payload instanceof ToolResultPayload result) {
			return result.value();
		}
		if (payload instanceof KnowledgeQueryPayload query) {
			return query.query();
		}
		if (payload instanceof KnowledgeResultsPayload results) {
			return results.passages()
				.stream()
				.map((passage) -> passage.source() + ": " + passage.text())
				.collect(Collectors.joining("\n"));
		}
		if (payload instanceof OutgoingTextPayload outgoing) {
			return outgoing.text();
		}
		return null;
	}

}
