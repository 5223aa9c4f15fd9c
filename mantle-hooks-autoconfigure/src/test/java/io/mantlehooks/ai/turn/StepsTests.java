package io.mantlehooks.ai.turn;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Both drivers run a step's pieces in the order written, however the binds nest, and in
 * constant stack.
 */
class StepsTests {

	private final ExecutorService executor = Executors.newFixedThreadPool(2);

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
	}

	@Test
	void bindsNestedEitherWayRunInTheOrderWrittenWithEachResultPassedOn() {
		List<String> ran = new ArrayList<>();
		// ((a then b) then c) then d: each bind holds the one before it
		Step<String> leftNested = Step.done("a")
			.then((a) -> step(ran, a, "b"))
			.then((b) -> step(ran, b, "c"))
			.then((c) -> step(ran, c, "d"));
		// a then (b then (c then d)): each continuation holds the rest
		Step<String> rightNested = Step.done("a")
			.then((a) -> step(ran, a, "b").then((b) -> step(ran, b, "c").then((c) -> step(ran, c, "d"))));
		// and the two mixed, with a map at the end of an inner bind
		Step<String> mixed = Step.done("a")
			.then((a) -> step(ran, a, "b").then((b) -> step(ran, b, "c")).map((c) -> c + "!"))
			.then((c) -> step(ran, c, "d"));
		assertBothDriversRun(leftNested, ran, "abcd", "a", "ab", "abc");
		assertBothDriversRun(rightNested, ran, "abcd", "a", "ab", "abc");
		assertBothDriversRun(mixed, ran, "abc!d", "a", "ab", "abc!");
	}

	/**
	 * Run the step through each driver in turn: the same result, the pieces in the same
	 * order.
	 */
	private void assertBothDriversRun(Step<String> step, List<String> ran, String result, String... order) {
		ran.clear();
		assertThat(Steps.join(step)).isEqualTo(result);
		assertThat(ran).containsExactly(order);
		ran.clear();
		assertThat(Steps.mono(step, this.executor).block()).isEqualTo(result);
		assertThat(ran).containsExactly(order);
	}

	@Test
	void awaitedAndBlockingPiecesPassTheirResultsOnInBothDrivers() {
		CompletableFuture<String> hook = new CompletableFuture<>();
		Step<String> step = Step.done("turn")
			.then((turn) -> Step.await(hook, (result) -> Step.done(turn + "+" + result)))
			.then((seen) -> Step.blocking(() -> seen + "+tools", Step::done))
			.map(String::toUpperCase);
		this.executor.execute(() -> hook.complete("hook"));
		assertThat(Steps.join(step)).isEqualTo("TURN+HOOK+TOOLS");
		assertThat(Steps.mono(step, this.executor).block()).isEqualTo("TURN+HOOK+TOOLS");
	}

	@Test
	void aHundredThousandBindsNestedEitherWayRunInConstantStack() {
		int depth = 100_000;
		Step<Integer> leftNested = Step.done(0);
		for (int i = 0; i < depth; i++) {
			leftNested = leftNested.then((n) -> Step.done(n + 1));
		}
		assertThat(Steps.join(leftNested)).isEqualTo(depth);
		assertThat(Steps.mono(leftNested, this.executor).block()).isEqualTo(depth);
		assertThat(Steps.join(countUp(0, depth))).isEqualTo(depth);
		assertThat(Steps.mono(countUp(0, depth), this.executor).block()).isEqualTo(depth);
	}

	@Test
	void aBindWithoutAContinuationIsRefusedWhereItIsWritten() {
		assertThatIllegalArgumentException().isThrownBy(() -> Step.done("a").then(null))
			.withMessageContaining("'next' must not be null");
	}

	/**
	 * A step that counts up to the limit one right-nested bind at a time.
	 */
	private static Step<Integer> countUp(int from, int limit) {
		if (from == limit) {
			return Step.done(from);
		}
		return Step.done(from).then((n) -> countUp(n + 1, limit));
	}

	private static Step<String> step(List<String> ran, String before, String added) {
		ran.add(before);
		return Step.done(before + added);
	}

}
