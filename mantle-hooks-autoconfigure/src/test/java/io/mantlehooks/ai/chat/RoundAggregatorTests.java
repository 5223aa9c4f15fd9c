package io.mantlehooks.ai.chat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A streamed round's chunks go on as they came, and its whole response is the one Spring
 * AI's own aggregator builds from them.
 */
class RoundAggregatorTests {

	@Test
	void chunksGoOnUnchangedAndTheWholeResponseIsSpringAisOwn() {
		List<ChatClientResponse> chunks = List.of(chunk("Hel", null, Map.of("a", 1)), chunk("lo", null, Map.of("a", 1)),
				chunk(null, new AssistantMessage.ToolCall("call_1", "function", "refund", "{}"), Map.of("b", 2)),
				withUsage(chunk("", null, Map.of("a", 1)), 7, 3));
		AtomicReference<ChatClientResponse> ours = new AtomicReference<>();
		List<ChatClientResponse> passed = RoundAggregator.aggregate(Flux.fromIterable(chunks), ours::set)
			.collectList()
			.block(Duration.ofSeconds(10));
		AtomicReference<ChatClientResponse> springs = new AtomicReference<>();
		new ChatClientMessageAggregator().aggregateChatClientResponse(Flux.fromIterable(chunks), springs::set)
			.blockLast(Duration.ofSeconds(10));
		assertThat(passed).hasSize(4);
		for (int i = 0; i < chunks.size(); i++) {
			assertThat(passed.get(i)).isSameAs(chunks.get(i));
		}
		ChatResponse whole = ours.get().chatResponse();
		ChatResponse expected = springs.get().chatResponse();
		assertThat(whole.getResult().getOutput().getText()).isEqualTo("Hello")
			.isEqualTo(expected.getResult().getOutput().getText());
		assertThat(whole.getResult().getOutput().getToolCalls())
			.isEqualTo(expected.getResult().getOutput().getToolCalls())
			.extracting(AssistantMessage.ToolCall::name)
			.containsExactly("refund");
		assertThat(whole.getMetadata().getUsage().getTotalTokens()).isEqualTo(10)
			.isEqualTo(expected.getMetadata().getUsage().getTotalTokens());
		assertThat(ours.get().context()).isEqualTo(springs.get().context()).isEqualTo(Map.of("a", 1, "b", 2));
	}

	@Test
	void aChunkWithoutAChatResponseIsDroppedAsSpringAiDropsIt() {
		ChatClientResponse empty = ChatClientResponse.builder().context(Map.of("c", 3)).build();
		ChatClientResponse text = chunk("Hi", null, Map.of("a", 1));
		AtomicReference<ChatClientResponse> whole = new AtomicReference<>();
		List<ChatClientResponse> passed = RoundAggregator.aggregate(Flux.just(empty, text), whole::set)
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(passed).containsExactly(text);
		assertThat(whole.get().chatResponse().getResult().getOutput().getText()).isEqualTo("Hi");
	}

	@Test
	void aFailedOrCancelledRoundHasNoWholeResponse() {
		AtomicReference<ChatClientResponse> whole = new AtomicReference<>();
		Throwable failure = catchThrowable(() -> RoundAggregator
			.aggregate(Flux.just(chunk("Hi", null, Map.of())).concatWith(Flux.error(new IllegalStateException("down"))),
					whole::set)
			.blockLast(Duration.ofSeconds(10)));
		assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessage("down");
		assertThat(whole.get()).isNull();
		Sinks.Many<ChatClientResponse> model = Sinks.many().unicast().onBackpressureBuffer();
		List<ChatClientResponse> received = new ArrayList<>();
		var subscription = RoundAggregator.aggregate(model.asFlux(), whole::set).subscribe(received::add);
		model.tryEmitNext(chunk("Hi", null, Map.of()));
		subscription.dispose();
		model.tryEmitComplete();
		assertThat(received).hasSize(1);
		assertThat(whole.get()).isNull();
	}

	@Test
	void eachSubscriptionAggregatesItsOwnRound() {
		List<ChatResponse> wholes = new ArrayList<>();
		Flux<ChatClientResponse> round = RoundAggregator.aggregate(
				Flux.just(chunk("A", null, Map.of()), chunk("B", null, Map.of())),
				(whole) -> wholes.add(whole.chatResponse()));
		round.blockLast(Duration.ofSeconds(10));
		round.blockLast(Duration.ofSeconds(10));
		assertThat(wholes).extracting((response) -> response.getResult().getOutput().getText())
			.containsExactly("AB", "AB");
	}

	private static ChatClientResponse chunk(String text, AssistantMessage.ToolCall toolCall,
			Map<String, Object> context) {
		AssistantMessage.Builder message = AssistantMessage.builder().content(text);
		if (toolCall != null) {
			message.toolCalls(List.of(toolCall));
		}
		return ChatClientResponse.builder()
			.chatResponse(new ChatResponse(List.of(new Generation(message.build()))))
			.context(context)
			.build();
	}

	private static ChatClientResponse withUsage(ChatClientResponse chunk, int prompt, int completion) {
		ChatResponse response = ChatResponse.builder()
			.generations(chunk.chatResponse().getResults())
			.metadata(ChatResponseMetadata.builder().usage(new DefaultUsage(prompt, completion)).build())
			.build();
		return ChatClientResponse.builder().chatResponse(response).context(chunk.context()).build();
	}

}
