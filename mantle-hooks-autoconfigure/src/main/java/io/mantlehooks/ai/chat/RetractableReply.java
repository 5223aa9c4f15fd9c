package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.MessageAggregator;

/**
 * A streamed reply as chat memory stores it: the chunks the user kept. A chunk marked
 * {@link io.mantlehooks.MantleHooks#RETRACTED} replaces everything before it, as it does
 * on the client. The kept chunks are aggregated the way Spring AI's memory advisors do it
 * ({@link MessageAggregator}), so text, tool calls and usage come out the same.
 */
final class RetractableReply {

	private final List<ChatResponse> kept = new ArrayList<>();

	private final Map<String, @Nullable Object> context = new HashMap<>();

	synchronized void add(ChatClientResponse chunk) {
		if (SegmentedReply.isRetraction(chunk)) {
			this.kept.clear();
		}
		this.context.putAll(chunk.context());
		if (chunk.chatResponse() != null) {
			this.kept.add(chunk.chatResponse());
		}
	}

	/**
	 * Return the reply the user kept, as one response.
	 */
	synchronized ChatClientResponse aggregated() {
		AtomicReference<@Nullable ChatResponse> aggregated = new AtomicReference<>();
		// a finite, synchronous source: the aggregate is complete when subscribe returns
		new MessageAggregator().aggregate(Flux.fromIterable(List.copyOf(this.kept)), aggregated::set).subscribe();
		return ChatClientResponse.builder().chatResponse(aggregated.get()).context(new HashMap<>(this.context)).build();
	}

}
