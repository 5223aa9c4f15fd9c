package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.CallerContext;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ChatModelStreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Where a streamed model call leaves the engine: Spring AI's own model advisor gets the
 * application's context only, and only when it really is the next advisor.
 */
class ModelBoundaryTests {

	private final StreamAdvisor modelCall = mock(StreamAdvisor.class);

	private final StreamAdvisor application = mock(StreamAdvisor.class);

	private final ChatModelStreamAdvisor model = ChatModelStreamAdvisor.builder()
		.chatModel(mock(ChatModel.class))
		.build();

	@Test
	void springAisModelAdvisorIsNextWhenItFollowsInTheWholeChainOrHeadsACopiedOne() {
		assertThat(NextAdvisor.isModelNext(List.of(this.application, this.modelCall, this.model), this.modelCall))
			.isTrue();
		// the tool loop called the model-call advisor with the chain copied after it
		assertThat(NextAdvisor.isModelNext(List.of(this.model), this.modelCall)).isTrue();
	}

	@Test
	void anAdvisorOfTheApplicationAfterOursIsNotSpringAisModelAdvisor() {
		assertThat(NextAdvisor.isModelNext(List.of(this.modelCall, this.application, this.model), this.modelCall))
			.isFalse();
		assertThat(NextAdvisor.isModelNext(List.of(this.application, this.model), this.modelCall)).isFalse();
		assertThat(NextAdvisor.isModelNext(List.of(this.modelCall), this.modelCall)).isFalse();
		assertThat(NextAdvisor.isModelNext(List.of(), this.modelCall)).isFalse();
	}

	@Test
	void theRequestForTheModelKeepsTheApplicationsKeysAndDropsTheEnginesOwn() {
		Map<String, Object> context = new HashMap<>();
		context.put("tenant", "t1");
		context.put(Turn.CONTEXT_KEY, "turn");
		context.put(Rounds.ITERATION, 2);
		context.put(Rounds.FEEDBACK, "shorter");
		ChatClientRequest request = new ChatClientRequest(new Prompt("hi"), context);
		ChatClientRequest sent = TurnContexts.toModel(request);
		assertThat(sent.context()).containsExactly(Map.entry("tenant", "t1"));
		assertThat(sent.prompt()).isSameAs(request.prompt());
		// the caller's request is left as it was
		assertThat(request.context()).hasSize(4);
	}

	@Test
	void aRequestWithoutEngineKeysGoesOnAsItIs() {
		ChatClientRequest request = new ChatClientRequest(new Prompt("hi"), Map.of("tenant", "t1"));
		assertThat(TurnContexts.toModel(request)).isSameAs(request);
		ChatClientRequest empty = new ChatClientRequest(new Prompt("hi"), Map.of());
		assertThat(TurnContexts.toModel(empty)).isSameAs(empty);
	}

	@Test
	void aRequestWithOnlyTheEnginesKeysReachesTheModelWithTheEmptyImmutableMap() {
		Map<String, Object> context = new HashMap<>();
		context.put(Turn.CONTEXT_KEY, "turn");
		context.put(Rounds.ITERATION, 2);
		ChatClientRequest sent = TurnContexts.toModel(new ChatClientRequest(new Prompt("hi"), context));
		// what Spring AI's model advisor copies into every chunk without iterating it
		assertThat(sent.context()).isSameAs(Map.of());
		assertThat(Map.copyOf(sent.context())).isSameAs(sent.context());
	}

	@Test
	void theCallersChunksShareOneContextWhileTheModelsChunkContextsHoldTheSame() {
		Turn turn = Turn.start(Map.of(), CallerContext.empty());
		TurnContexts.Chunks chunks = new TurnContexts.Chunks(turn);
		// each chunk of Spring AI's model advisor has a new map, empty without an
		// application context
		ChatClientResponse first = chunks.leave(chunk("Hel", new HashMap<>()));
		ChatClientResponse second = chunks.leave(chunk("lo", new HashMap<>()));
		assertThat(first.context()).containsEntry(MantleHooks.TURN_ID, turn.id())
			.containsEntry(MantleHooks.AGENT, MantleHooks.DEFAULT_AGENT)
			.hasSize(2);
		assertThat(second.context()).isSameAs(first.context());
		assertThat(second.chatResponse().getResult().getOutput().getText()).isEqualTo("lo");
		ChatClientResponse tagged = chunks.leave(chunk("!", new HashMap<>(Map.of("tenant", "t1"))));
		assertThat(tagged.context()).containsEntry("tenant", "t1").containsEntry(MantleHooks.TURN_ID, turn.id());
		ChatClientResponse again = chunks.leave(chunk("?", new HashMap<>(Map.of("tenant", "t1"))));
		assertThat(again.context()).isSameAs(tagged.context());
		assertThat(chunks.leave(chunk(".", new HashMap<>())).context()).doesNotContainKey("tenant");
	}

	private static ChatClientResponse chunk(String text, Map<String, Object> context) {
		return new ChatClientResponse(new ChatResponse(List.of(new Generation(new AssistantMessage(text)))), context);
	}

}
