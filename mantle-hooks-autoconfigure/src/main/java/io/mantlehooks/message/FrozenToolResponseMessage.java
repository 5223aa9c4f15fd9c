package io.mantlehooks.message;

import java.util.Map;

import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * A {@link ToolResponseMessage} that cannot change: made with Spring AI's protected
 * constructor from a read-only copy of the responses, so {@code equals}, {@code hashCode}
 * and {@code toString} are {@code ToolResponseMessage}'s own; only {@link #getMetadata()}
 * is overridden, to a read-only view.
 */
final class FrozenToolResponseMessage extends ToolResponseMessage implements FrozenMessage {

	private final ToolResponseMessage source;

	FrozenToolResponseMessage(ToolResponseMessage source) {
		// Spring AI does not check the responses: a missing list stays missing
		super((source.getResponses() != null) ? ReadOnly.copy(source.getResponses()) : null, source.getMetadata());
		this.source = source;
	}

	@Override
	public ToolResponseMessage source() {
		return this.source;
	}

	@Override
	public boolean matchesSource() {
		return ReadOnly.sameEntries(this.metadata, this.source.getMetadata())
				&& ReadOnly.sameElements(this.responses, this.source.getResponses());
	}

	@Override
	public Map<String, Object> getMetadata() {
		// a view per call, made only when asked: most frozen messages never are
		return ReadOnly.map(this.metadata);
	}

}
