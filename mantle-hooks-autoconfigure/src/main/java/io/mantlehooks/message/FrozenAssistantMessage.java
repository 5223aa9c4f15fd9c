package io.mantlehooks.message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import org.springframework.ai.chat.messages.AssistantMessage;

/**
 * An {@link AssistantMessage} that cannot change: made with Spring AI's protected
 * constructor from read-only copies of the tool calls and media, so {@code equals},
 * {@code hashCode} and {@code toString} are {@code AssistantMessage}'s own; only
 * {@link #getMetadata()} is overridden, to a read-only view.
 */
final class FrozenAssistantMessage extends AssistantMessage implements FrozenMessage {

	private final AssistantMessage source;

	FrozenAssistantMessage(AssistantMessage source) {
		super(source.getText(), source.getMetadata(), ReadOnly.copy(source.getToolCalls()),
				ReadOnly.copy(source.getMedia()));
		this.source = source;
	}

	@Override
	public AssistantMessage source() {
		return this.source;
	}

	@Override
	public boolean matchesSource() {
		return Objects.equals(this.textContent, this.source.getText())
				&& ReadOnly.sameEntries(this.metadata, this.source.getMetadata())
				&& ReadOnly.sameElements(getToolCalls(), this.source.getToolCalls())
				&& ReadOnly.sameElements(this.media, this.source.getMedia());
	}

	@Override
	public Map<String, Object> getMetadata() {
		// a view per call, made only when asked: most frozen messages never are
		return ReadOnly.map(this.metadata);
	}

	/**
	 * Return a builder for an ordinary, changeable message with this one's content:
	 * {@code AssistantMessage}'s own would hand the read-only lists on.
	 */
	@Override
	public Builder<?> mutate() {
		return AssistantMessage.builder()
			.content(getText())
			.properties(new HashMap<>(this.metadata))
			.toolCalls(new ArrayList<>(getToolCalls()))
			.media(new ArrayList<>(getMedia()));
	}

}
