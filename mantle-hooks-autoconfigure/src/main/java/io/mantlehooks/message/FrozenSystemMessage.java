package io.mantlehooks.message;

import java.util.Map;
import java.util.Objects;

import org.springframework.ai.chat.messages.SystemMessage;

/**
 * A {@link SystemMessage} that cannot change. Spring AI's full constructor is private, so
 * the public one makes the message and its own (inherited) metadata map is then filled:
 * {@code equals}, {@code hashCode}, {@code toString}, {@code copy()} and {@code mutate()}
 * are {@code SystemMessage}'s own; only {@link #getMetadata()} hands out a read-only
 * view.
 */
final class FrozenSystemMessage extends SystemMessage implements FrozenMessage {

	private final SystemMessage source;

	FrozenSystemMessage(SystemMessage source) {
		super(source.getText());
		ReadOnly.fillMetadata(this.metadata, source.getMetadata());
		this.source = source;
	}

	@Override
	public SystemMessage source() {
		return this.source;
	}

	@Override
	public boolean matchesSource() {
		return Objects.equals(this.textContent, this.source.getText())
				&& ReadOnly.sameEntries(this.metadata, this.source.getMetadata());
	}

	@Override
	public Map<String, Object> getMetadata() {
		// a view per call, made only when asked: most frozen messages never are
		return ReadOnly.map(this.metadata);
	}

}
