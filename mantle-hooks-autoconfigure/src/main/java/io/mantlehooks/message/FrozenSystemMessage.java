package io.mantlehooks.message;

import java.util.Map;

import org.jspecify.annotations.Nullable;

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

	/** Made on first use: most frozen messages are never asked for their metadata. */
	private @Nullable Map<String, Object> readOnlyMetadata;

	FrozenSystemMessage(SystemMessage source) {
		super(source.getText());
		this.metadata.putAll(source.getMetadata());
		this.source = source;
	}

	@Override
	public SystemMessage source() {
		return this.source;
	}

	@Override
	public Map<String, Object> getMetadata() {
		Map<String, Object> view = this.readOnlyMetadata;
		if (view == null) {
			// a race makes two equal views; the view's fields are final, so either is
			// safely published
			view = ReadOnly.map(this.metadata);
			this.readOnlyMetadata = view;
		}
		return view;
	}

}
