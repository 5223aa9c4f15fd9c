package io.mantlehooks.bench;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import reactor.core.publisher.Flux;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Stub chat models for benchmarks: no network, so what is measured is the chain.
 */
final class BenchModels {

	/** What a call answers. */
	static final String CALLED_TEXT = "The answer is forty-two.";

	/** What a stream's chunks add up to. */
	static final String STREAMED_TEXT = "word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 ";

	private BenchModels() {
	}

	/**
	 * Answers at once; streams ten chunks at once.
	 */
	static final class Instant implements ChatModel {

		private static final ChatResponse RESPONSE = new ChatResponse(
				List.of(new Generation(new AssistantMessage(CALLED_TEXT))));

		private static final List<ChatResponse> CHUNKS = chunks();

		@Override
		public ChatResponse call(Prompt prompt) {
			return RESPONSE;
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.fromIterable(CHUNKS);
		}

	}

	/**
	 * Streams ten chunks over 50 ms (one every 5 ms); a call takes 50 ms.
	 */
	static final class Paced implements ChatModel {

		private static final List<ChatResponse> CHUNKS = chunks();

		@Override
		public ChatResponse call(Prompt prompt) {
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return Instant.RESPONSE;
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.interval(Duration.ofMillis(5)).take(10).map((i) -> CHUNKS.get(i.intValue()));
		}

	}

	private static List<ChatResponse> chunks() {
		return IntStream.range(0, 10)
			.mapToObj((i) -> new ChatResponse(List.of(new Generation(new AssistantMessage("word" + i + " ")))))
			.toList();
	}

}
