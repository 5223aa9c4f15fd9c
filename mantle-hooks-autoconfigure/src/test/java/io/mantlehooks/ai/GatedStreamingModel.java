package io.mantlehooks.ai;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A streaming chat model the test drives chunk by chunk: what it streams and when it
 * completes is up to the test, so a test can see what reached the caller before the model
 * finished, without any timing. It notes whether its stream was cancelled.
 */
class GatedStreamingModel implements ChatModel {

	private volatile Sinks.Many<String> chunks = Sinks.many().unicast().onBackpressureBuffer();

	final AtomicBoolean cancelled = new AtomicBoolean();

	final AtomicInteger streams = new AtomicInteger();

	/** Whether its options support tool calling, as a provider's (OpenAI's) always do. */
	private final boolean toolCapable;

	GatedStreamingModel() {
		this(false);
	}

	private GatedStreamingModel(boolean toolCapable) {
		this.toolCapable = toolCapable;
	}

	/**
	 * Return a model whose options support tool calling, as a provider's do, whether or
	 * not a request offers tools.
	 */
	static GatedStreamingModel toolCapable() {
		return new GatedStreamingModel(true);
	}

	/** Stream one chunk of text. */
	void emit(String text) {
		this.chunks.tryEmitNext(text).orThrow();
	}

	/** Stream each chunk, then complete. */
	void emitAll(String... texts) {
		for (String text : texts) {
			emit(text);
		}
		complete();
	}

	/** Complete the stream, with a final chunk that carries the finish reason. */
	void complete() {
		this.chunks.tryEmitComplete().orThrow();
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		throw new UnsupportedOperationException("this model only streams");
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		this.streams.incrementAndGet();
		return this.chunks.asFlux()
			.map(GatedStreamingModel::chunk)
			.concatWith(Flux.just(finish()))
			.doOnCancel(() -> this.cancelled.set(true));
	}

	@Override
	public ChatOptions getDefaultOptions() {
		return this.toolCapable ? ToolCallingChatOptions.builder().build() : ChatOptions.builder().build();
	}

	@Override
	public ChatOptions getOptions() {
		return getDefaultOptions();
	}

	private static ChatResponse chunk(String text) {
		return new ChatResponse(List.of(new Generation(new AssistantMessage(text))));
	}

	private static ChatResponse finish() {
		return new ChatResponse(List.of(new Generation(new AssistantMessage(""),
				ChatGenerationMetadata.builder().finishReason("STOP").build())));
	}

}
