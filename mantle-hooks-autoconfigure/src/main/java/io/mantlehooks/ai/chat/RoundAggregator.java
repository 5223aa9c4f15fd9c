package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.model.MessageAggregator;

/**
 * A streamed round's whole response, built by Spring AI's {@link MessageAggregator} from
 * its chunks while the chunks go on as they came.
 * <p>
 * Why not {@link ChatClientMessageAggregator}: it rebuilds every chunk as a new
 * {@code ChatClientResponse} with a copy of the context merged so far (a builder, a map
 * and the response, per chunk), which is what Spring AI's own chain pays at every advisor
 * hop. The chunks of one model call carry equal contexts (each a copy of the request's),
 * so passing them on unchanged loses nothing; the whole response gets every chunk's
 * context merged, as Spring AI's does.
 */
final class RoundAggregator {

	private static final MessageAggregator MESSAGES = new MessageAggregator();

	private RoundAggregator() {
	}

	/**
	 * Pass a round's chunks on and hand its whole response to {@code whole} when the
	 * round completes. Chunks without a chat response are dropped, as Spring AI's
	 * aggregator drops them.
	 * @param chunks the round's chunks
	 * @param whole what gets the whole response
	 * @return the chunks
	 */
	static Flux<ChatClientResponse> aggregate(Flux<ChatClientResponse> chunks, Consumer<ChatClientResponse> whole) {
		return Flux.defer(() -> {
			Map<String, @Nullable Object> context = new HashMap<>();
			// the chunk whose chat response the aggregator is passing on: it passes each
			// on synchronously and unchanged, right after it was taken from its chunk
			AtomicReference<ChatClientResponse> passing = new AtomicReference<>();
			// not mapNotNull: that is a handle operator, in which Reactor restores every
			// registered thread-local from the subscriber's context for every chunk
			return MESSAGES.aggregate(chunks.doOnNext((chunk) -> context.putAll(chunk.context()))
				.filter((chunk) -> chunk.chatResponse() != null)
				.map((chunk) -> {
					passing.set(chunk);
					return chunk.chatResponse();
				}), (response) -> whole
					.accept(ChatClientResponse.builder().chatResponse(response).context(context).build()))
				.map((response) -> passing.get());
		});
	}

}
