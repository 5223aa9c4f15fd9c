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

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@code .call()} turn whose prompt carries a conversation history of {@code messages}
 * messages (the last one the user's new message; the others alternate user and
 * assistant, each with a metadata entry, as a chat memory replays them): plain Spring AI,
 * one blocking {@code @ModifyModelRequest} hook that redacts the new message, and that
 * hook with a model-request observer. Per-hook cost is the hook variant minus plain at
 * the same history; a long conversation should cost the hook no more than a short one.
 * <p>
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

	@Param({ "plain", "modifyHook", "modifyHookAndObserver" })
	public String variant;

	@Param({ "2", "100" })
	public int messages;

	private ConfigurableApplicationContext context;

	private ChatClient chatClient;

	private List<Message> history;

	@Setup(Level.Trial)
	public void setUp() {
		BenchModels.Instant model = new BenchModels.Instant();
		Class<?> hooks = switch (this.variant) {
			case "modifyHook" -> RedactNewMessage.class;
			case "modifyHookAndObserver" -> RedactNewMessageAndObserve.class;
			default -> null;
		};
		this.context = BenchApplication.start(model, hooks, Map.of());
		this.chatClient = "plain".equals(this.variant) ? ChatClient.builder(model).build()
				: BenchApplication.chatClient(this.context);
		this.history = new ArrayList<>();
		for (int i = 0; i < this.messages - 1; i++) {
			this.history.add((i % 2 == 0) ? UserMessage.builder().text("question " + i).metadata(Map.of("turn", i)).build()
					: AssistantMessage.builder().content("answer " + i).properties(Map.of("turn", i)).build());
		}
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.context.close();
	}

	@Benchmark
	public Object call() {
		return this.chatClient.prompt().messages(this.history).user("my card is 4111").call().content();
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

}
