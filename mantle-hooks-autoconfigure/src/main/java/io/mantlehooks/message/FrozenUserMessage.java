package io.mantlehooks.message;

import java.util.List;
import java.util.Map;
import java.util.Objects;

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

	FrozenUserMessage(UserMessage source) {
		super(source.getText());
		ReadOnly.fillMetadata(this.metadata, source.getMetadata());
		List<Media> media = source.getMedia();
		if (!media.isEmpty()) {
			this.media.addAll(media);
		}
		this.source = source;
	}

	@Override
	public UserMessage source() {
		return this.source;
	}

	@Override
	public boolean matchesSource() {
		return Objects.equals(this.textContent, this.source.getText())
				&& ReadOnly.sameEntries(this.metadata, this.source.getMetadata())
				&& ReadOnly.sameElements(this.media, this.source.getMedia());
	}

	@Override
	public Map<String, Object> getMetadata() {
		// a view per call, made only when asked: most frozen messages never are
		return ReadOnly.map(this.metadata);
	}

	@Override
	public List<Media> getMedia() {
		return ReadOnly.list(this.media);
	}

}
