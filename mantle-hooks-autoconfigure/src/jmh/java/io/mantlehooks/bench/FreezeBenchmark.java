package io.mantlehooks.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.message.FrozenMessageCache;
import io.mantlehooks.message.FrozenMessages;
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
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * What a model request's history costs the hooks, on one thread, without a turn around
 * it: {@code freeze} is what a turn pays once (the first model call), {@code
 * freezeAgain} what each further model call of the turn pays for the same history,
 * {@code copyEach} what every hook invocation would pay if each got its own copy (a
 * Spring AI {@code copy()} per message).
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure -am verify -DskipTests
 * -Djmh.args="FreezeBenchmark -prof gc"}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FreezeBenchmark {

	@Param({ "2", "100" })
	public int messages;

	private List<Message> history;

	private List<Message> frozen;

	private FrozenMessageCache kept;

	@Setup(Level.Trial)
	public void setUp() {
		this.history = new ArrayList<>();
		for (int i = 0; i < this.messages; i++) {
			this.history.add((i % 2 == 0) ? UserMessage.builder().text("question " + i).metadata(Map.of("turn", i)).build()
					: AssistantMessage.builder().content("answer " + i).properties(Map.of("turn", i)).build());
		}
		this.frozen = FrozenMessages.freeze(this.history);
		this.kept = new FrozenMessageCache();
		FrozenMessages.freeze(this.history, null, this.kept);
	}

	@Benchmark
	public List<Message> freeze() {
		return FrozenMessages.freeze(this.history);
	}

	@Benchmark
	public List<Message> freezeAgain() {
		return FrozenMessages.freeze(this.history, this.frozen);
	}

	@Benchmark
	public List<Message> freezeKept() {
		return FrozenMessages.freeze(this.history, null, this.kept);
	}

	/**
	 * The history as it is, then a user message never seen before (every turn's new one)
	 * through a cache that is full of other turns' copies: what a turn without chat
	 * memory pays for the cache on top of freezing.
	 */
	@Benchmark
	public List<Message> freezeKeptWithNewMessage() {
		List<Message> prompt = new ArrayList<>(this.history.size() + 1);
		prompt.addAll(this.history);
		prompt.add(new UserMessage("my card is 4111"));
		return FrozenMessages.freeze(prompt, null, this.kept);
	}

	@Benchmark
	public List<Message> copyEach() {
		List<Message> copies = new ArrayList<>(this.history.size());
		for (Message message : this.history) {
			copies.add((message instanceof UserMessage user) ? user.copy() : ((AssistantMessage) message).copy());
		}
		return copies;
	}

}
