package io.mantlehooks.message;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.content.Media;

/**
 * A {@link UserMessage} that cannot change. Spring AI's full constructor is private, so
 * the public one makes an empty message whose own (inherited) metadata map and media list
 * are then filled: {@code equals}, {@code hashCode}, {@code toString}, {@code copy()} and
 * {@code mutate()} are {@code UserMessage}'s own and see the same values as for the
 * source; only the getters hand out read-only views.
 */
final class FrozenUserMessage extends UserMessage implements FrozenMessage {

	private final UserMessage source;

	/** Made on first use: most frozen messages are never asked for their metadata. */
	private @Nullable Map<String, Object> readOnlyMetadata;

	private @Nullable List<Media> readOnlyMedia;

	FrozenUserMessage(UserMessage source) {
		super(source.getText());
		this.metadata.putAll(source.getMetadata());
		this.media.addAll(source.getMedia());
		this.source = source;
	}

	@Override
	public UserMessage source() {
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

	@Override
	public List<Media> getMedia() {
		List<Media> view = this.readOnlyMedia;
		if (view == null) {
			view = ReadOnly.list(this.media);
			this.readOnlyMedia = view;
		}
		return view;
	}

}
