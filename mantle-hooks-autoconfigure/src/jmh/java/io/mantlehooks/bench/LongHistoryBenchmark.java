package io.mantlehooks.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.OnModelRequest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@code .call()} turn whose prompt carries a conversation history of about
 * {@code messages} messages (the last one the user's new message; the others alternate
 * user and assistant, each with a metadata entry): plain Spring AI, one blocking
 * {@code @ModifyModelRequest} hook that redacts the new message, and that hook with a
 * model-request observer. Per-hook cost is the hook variant minus plain at the same
 * history; a long conversation should cost the hook no more than a short one.
 * <p>
 * Where the history comes from ({@code history}):
 * <ul>
 * <li>{@code fixed}: the same message instances every turn, passed with
 * {@code .messages(...)}, plus a new user message (the benchmark's first form);</li>
 * <li>{@code memory}: Spring AI's {@code MessageChatMemoryAdvisor} over a
 * {@code MessageWindowChatMemory} of {@code messages} messages (in-memory repository):
 * each turn replays the instances memory keeps, adds the new user message and the
 * model's new reply, and the window slides (the prompt carries {@code messages} messages
 * for 100, 3 for 2, as the window keeps whole exchanges);</li>
 * <li>{@code rebuilt}: new message instances with the same content every turn, as an
 * application that loads its history from a database each turn: nothing can be reused
 * across turns.</li>
 * </ul>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure -am verify -DskipTests
 * -Djmh.args="LongHistoryBenchmark -prof gc"}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LongHistoryBenchmark {

	private static final String CONVERSATION = "bench-conversation";

	@Param({ "plain", "modifyHook", "modifyHookAndObserver" })
	public String variant;

	@Param({ "2", "100" })
	public int messages;

	@Param({ "fixed", "memory", "rebuilt" })
	public String history;

	private ConfigurableApplicationContext context;

	private ChatClient chatClient;

	private List<Message> fixedHistory;

	private MessageChatMemoryAdvisor memoryAdvisor;

	@Setup(Level.Trial)
	public void setUp() {
		boolean memory = "memory".equals(this.history);
		// chat memory keeps each reply: a model that answers with a new message per call,
		// as a provider does (the other forms keep the one shared reply of before)
		ChatModel model = memory ? new FreshReplies() : new BenchModels.Instant();
		Class<?> hooks = switch (this.variant) {
			case "modifyHook" -> RedactNewMessage.class;
			case "modifyHookAndObserver" -> RedactNewMessageAndObserve.class;
			default -> null;
		};
		this.context = BenchApplication.start(model, hooks, Map.of());
		this.chatClient = "plain".equals(this.variant) ? ChatClient.builder(model).build()
				: BenchApplication.chatClient(this.context);
		this.fixedHistory = history(this.messages - 1);
		if (memory) {
			ChatMemory chatMemory = MessageWindowChatMemory.builder().maxMessages(this.messages).build();
			chatMemory.add(CONVERSATION, history(this.messages - 1));
			this.memoryAdvisor = MessageChatMemoryAdvisor.builder(chatMemory).build();
		}
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.context.close();
	}

	@Benchmark
	public Object call() {
		return switch (this.history) {
			case "memory" -> this.chatClient.prompt()
				.advisors((spec) -> spec.advisors(this.memoryAdvisor).param(ChatMemory.CONVERSATION_ID, CONVERSATION))
				.user("my card is 4111")
				.call()
				.content();
			case "rebuilt" ->
				this.chatClient.prompt().messages(history(this.messages - 1)).user("my card is 4111").call().content();
			default -> this.chatClient.prompt().messages(this.fixedHistory).user("my card is 4111").call().content();
		};
	}

	private static List<Message> history(int size) {
		List<Message> history = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			history.add((i % 2 == 0) ? UserMessage.builder().text("question " + i).metadata(Map.of("turn", i)).build()
					: AssistantMessage.builder().content("answer " + i).properties(Map.of("turn", i)).build());
		}
		return history;
	}

	/**
	 * Redacts the user's new message, the last of the prompt: the hook's own work does not
	 * grow with the history.
	 */
	public static class RedactNewMessage {

		@ModifyModelRequest
		public ModelRequestPayload redact(ModelRequestPayload request) {
			List<Message> messages = new ArrayList<>(request.messages());
			int last = messages.size() - 1;
			if (messages.get(last) instanceof UserMessage user) {
				messages.set(last, user.mutate().text(user.getText().replace("4111", "[card]")).build());
			}
			return request.withMessages(messages);
		}

	}

	public static class RedactNewMessageAndObserve extends RedactNewMessage {

		@OnModelRequest
		public void observe(ModelRequestPayload request) {
			Blackhole.consumeCPU(request.messages().size());
		}

	}

	/**
	 * Answers every call at once with a new message, which chat memory then keeps.
	 */
	static final class FreshReplies implements ChatModel {

		@Override
		public ChatResponse call(Prompt prompt) {
			return new ChatResponse(List.of(new Generation(new AssistantMessage(BenchModels.CALLED_TEXT))));
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.just(call(prompt));
		}

	}

}
