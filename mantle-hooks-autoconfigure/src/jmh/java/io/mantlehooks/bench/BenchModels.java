package io.mantlehooks.bench;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

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

	/** Words per sentence of {@link Sentences}; each word is one chunk. */
	static final int SENTENCE_WORDS = 5;

	/** How far apart {@link Sentences} sends its chunks. */
	static final Duration SENTENCE_CHUNK_INTERVAL = Duration.ofMillis(10);

	/**
	 * What the ten-sentence stream adds up to: "This is sentence number one. This is
	 * sentence number two. ..." (every sentence ends with ". ", no abbreviations or
	 * decimals, so each ends where its full stop is).
	 */
	static final String SENTENCES_TEXT = String.join("", sentenceWords());

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

	/**
	 * Streams ten sentences of five words over 500 ms, one word (with its trailing space)
	 * every 10 ms: the first sentence is complete after 50 ms, the reply after 500 ms. A
	 * call takes 500 ms.
	 */
	static final class Sentences implements ChatModel {

		private static final ChatResponse RESPONSE = new ChatResponse(
				List.of(new Generation(new AssistantMessage(SENTENCES_TEXT))));

		private static final List<ChatResponse> CHUNKS = sentenceWords().stream()
			.map((word) -> new ChatResponse(List.of(new Generation(new AssistantMessage(word)))))
			.toList();

		/** When the first sentence's last chunk leaves the model, after the stream starts. */
		static Duration firstSentenceEnd() {
			return SENTENCE_CHUNK_INTERVAL.multipliedBy(SENTENCE_WORDS);
		}

		/** When the last chunk leaves the model, after the stream starts. */
		static Duration replyEnd() {
			return SENTENCE_CHUNK_INTERVAL.multipliedBy(CHUNKS.size());
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			try {
				Thread.sleep(replyEnd().toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return RESPONSE;
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			// the first tick comes one interval after subscription, so the first sentence
			// ends at 5 x 10 ms and the reply at 50 x 10 ms
			return Flux.interval(SENTENCE_CHUNK_INTERVAL).take(CHUNKS.size()).map((i) -> CHUNKS.get(i.intValue()));
		}

	}

	private static List<String> sentenceWords() {
		List<String> numbers = List.of("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten");
		return numbers.stream()
			.flatMap((number) -> Stream.of("This ", "is ", "sentence ", "number ", number + ". "))
			.toList();
	}

	private static List<ChatResponse> chunks() {
		return IntStream.range(0, 10)
			.mapToObj((i) -> new ChatResponse(List.of(new Generation(new AssistantMessage("word" + i + " ")))))
			.toList();
	}

}
