package io.mantlehooks.message;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Frozen messages kept across turns: a history handed out as the same instances turn
 * after turn is frozen once; a message changed since is frozen again; a copy is only ever
 * reused for its own source, also with every message in one slot and under concurrent
 * turns; and the cache holds no more than its capacity.
 */
class FrozenMessageCacheTests {

	@Test
	void aSecondTurnOfTheConversationGetsTheFirstTurnsFrozenMessages() {
		FrozenMessageCache kept = new FrozenMessageCache();
		List<Message> history = FrozenMessagesTests.history(100);
		List<Message> first = FrozenMessages.freeze(withNew(history, "first"), null, kept);
		List<Message> second = FrozenMessages.freeze(withNew(history, "second"), null, kept);
		for (int i = 0; i < 100; i++) {
			assertThat(second.get(i)).isSameAs(first.get(i));
		}
		assertThat(second.get(100).getText()).isEqualTo("second");
		assertThat(FrozenMessages.thaw(second).subList(0, 100)).usingElementComparator(FrozenMessageCacheTests::same)
			.isEqualTo(history);
	}

	@Test
	void aHistoryThatSlidesAndMovesItsSystemMessageFirstIsStillReused() {
		// MessageWindowChatMemory drops the oldest exchange and keeps the system
		// message first: positions change, instances do not
		FrozenMessageCache kept = new FrozenMessageCache();
		SystemMessage system = new SystemMessage("be brief");
		List<Message> history = FrozenMessagesTests.history(20);
		List<Message> first = FrozenMessages.freeze(concat(List.of(system), history), null, kept);
		List<Message> second = FrozenMessages.freeze(concat(List.of(system), history.subList(2, 20)), null, kept);
		assertThat(second.get(0)).isSameAs(first.get(0));
		for (int i = 1; i < 19; i++) {
			assertThat(second.get(i)).isSameAs(first.get(i + 2));
		}
	}

	@Test
	void aMessageChangedBetweenTurnsIsFrozenAgainWithWhatItHoldsNow() {
		FrozenMessageCache kept = new FrozenMessageCache();
		UserMessage user = FrozenMessagesTests.user();
		AssistantMessage assistant = AssistantMessage.builder()
			.content("let me look")
			.properties(Map.of("k", "v"))
			.toolCalls(new ArrayList<>(List.of(new AssistantMessage.ToolCall("call_1", "function", "f", "{}"))))
			.build();
		ToolResponseMessage toolResponse = FrozenMessagesTests.toolResponse();
		SystemMessage system = FrozenMessagesTests.system();
		UserMessage untouched = new UserMessage("untouched");
		List<Message> history = List.of(system, user, assistant, toolResponse, untouched);
		List<Message> first = FrozenMessages.freeze(history, null, kept);
		// the first turn's hooks read every message (messages are frozen when first read)
		assertThat(first).allSatisfy((message) -> assertThat(FrozenMessages.isFrozen(message)).isTrue());

		user.getMetadata().put("flag", "changed");
		user.getMedia().clear();
		assistant.getToolCalls().add(new AssistantMessage.ToolCall("call_2", "function", "g", "{}"));
		toolResponse.getMetadata().put("k", "w");
		system.getMetadata().remove("k");
		List<Message> second = FrozenMessages.freeze(history, null, kept);

		for (int i = 0; i < 4; i++) {
			assertThat(second.get(i)).isNotSameAs(first.get(i)).isEqualTo(history.get(i));
			assertThat(FrozenMessages.isFrozen(second.get(i))).isTrue();
		}
		assertThat(second.get(1).getMetadata()).containsEntry("flag", "changed");
		assertThat(((UserMessage) second.get(1)).getMedia()).isEmpty();
		assertThat(((AssistantMessage) second.get(2)).getToolCalls()).hasSize(2);
		assertThat(second.get(3).getMetadata()).containsEntry("k", "w");
		assertThat(second.get(0).getMetadata()).doesNotContainKey("k");
		// the first turn's copies kept what they were frozen with
		assertThat(first.get(1).getMetadata()).doesNotContainKey("flag");
		assertThat(((AssistantMessage) first.get(2)).getToolCalls()).hasSize(1);
		assertThat(second.get(4)).isSameAs(first.get(4));
		// the new copies are kept in turn
		assertThat(FrozenMessages.freeze(history, null, kept)).usingElementComparator(FrozenMessageCacheTests::same)
			.isEqualTo(second);
	}

	@Test
	void aMetadataValueReplacedByAnEqualOneIsFrozenAgain() {
		// the copy must hold the very values the source holds (they may be mutable)
		FrozenMessageCache kept = new FrozenMessageCache();
		List<String> tags = new ArrayList<>(List.of("a"));
		UserMessage user = UserMessage.builder().text("hi").metadata(new HashMap<>(Map.of("tags", tags))).build();
		Message first = FrozenMessages.freeze(List.of(user), null, kept).get(0);
		user.getMetadata().put("tags", new ArrayList<>(tags));
		Message second = FrozenMessages.freeze(List.of(user), null, kept).get(0);
		assertThat(second).isNotSameAs(first);
		assertThat(second.getMetadata().get("tags")).isSameAs(user.getMetadata().get("tags"));
	}

	@Test
	void aCopyIsReusedOnlyForItsOwnSourceEvenWhenEveryMessageSharesOneSlot() {
		FrozenMessageCache kept = new FrozenMessageCache(1);
		// two conversations with equal messages: equal is not the same
		List<Message> mine = FrozenMessagesTests.history(10);
		List<Message> theirs = FrozenMessagesTests.history(10);
		List<Message> frozenMine = FrozenMessages.freeze(mine, null, kept);
		List<Message> frozenTheirs = FrozenMessages.freeze(theirs, null, kept);
		List<Message> mineAgain = FrozenMessages.freeze(mine, null, kept);
		for (int i = 0; i < 10; i++) {
			assertThat(frozenTheirs.get(i)).isNotSameAs(frozenMine.get(i));
			assertThat(FrozenMessages.thaw(frozenTheirs).get(i)).isSameAs(theirs.get(i));
			assertThat(FrozenMessages.thaw(mineAgain).get(i)).isSameAs(mine.get(i));
		}
		assertThat(kept.size()).isEqualTo(1);
	}

	@Test
	void concurrentTurnsOfManyConversationsEachGetTheirOwnMessagesAsTheyAreNow() throws Exception {
		// a small cache, so conversations keep taking each other's slots, and
		// conversations that change their own messages' metadata between turns
		FrozenMessageCache kept = new FrozenMessageCache(64);
		int conversations = 16;
		int turns = 200;
		CyclicBarrier start = new CyclicBarrier(conversations);
		ExecutorService threads = Executors.newFixedThreadPool(conversations);
		try {
			List<Future<Integer>> results = new ArrayList<>();
			for (int c = 0; c < conversations; c++) {
				int conversation = c;
				results.add(threads.submit((Callable<Integer>) () -> {
					List<Message> history = FrozenMessagesTests.history(30);
					start.await();
					int checked = 0;
					for (int turn = 0; turn < turns; turn++) {
						if (turn % 3 == 0) {
							history.get(turn % 30).getMetadata().put("seen", turn);
						}
						List<Message> prompt = withNew(history, "conversation " + conversation + " turn " + turn);
						List<Message> frozen = FrozenMessages.freeze(prompt, null, kept);
						List<Message> thawed = FrozenMessages.thaw(frozen);
						for (int i = 0; i < prompt.size(); i++) {
							assertThat(thawed.get(i)).isSameAs(prompt.get(i));
							assertThat(frozen.get(i)).isEqualTo(prompt.get(i));
							assertThat(frozen.get(i).getMetadata()).isEqualTo(prompt.get(i).getMetadata());
							checked++;
						}
						history.add(new AssistantMessage("reply " + turn));
						history.remove(0);
					}
					return checked;
				}));
			}
			for (Future<Integer> result : results) {
				assertThat(result.get()).isEqualTo(turns * 31);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(kept.size()).isLessThanOrEqualTo(64);
	}

	@Test
	void theCacheHoldsNoMoreThanItsCapacityAndLetsTheRestGo() {
		FrozenMessageCache kept = new FrozenMessageCache(64);
		assertThat(kept.capacity()).isEqualTo(64);
		UserMessage oldest = new UserMessage("oldest");
		WeakReference<UserMessage> oldestReference = new WeakReference<>(oldest);
		FrozenMessages.freeze(List.of(oldest), null, kept);
		oldest = null;
		for (int i = 0; i < 10_000; i++) {
			FrozenMessages.freeze(List.of(new UserMessage("message " + i)), null, kept);
		}
		assertThat(kept.size()).isLessThanOrEqualTo(64);
		// the oldest message's slot was taken long ago: nothing holds its source now
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			System.gc();
			return oldestReference.get() == null;
		});
	}

	@Test
	void theCapacityIsAPowerOfTwoAndPositive() {
		assertThat(new FrozenMessageCache(100).capacity()).isEqualTo(128);
		assertThat(new FrozenMessageCache(1).capacity()).isEqualTo(1);
		assertThat(new FrozenMessageCache().capacity()).isEqualTo(FrozenMessageCache.DEFAULT_CAPACITY);
		assertThatIllegalArgumentException().isThrownBy(() -> new FrozenMessageCache(0))
			.withMessageContaining("capacity");
	}

	private static List<Message> withNew(List<Message> history, String text) {
		return concat(history, List.of(new UserMessage(text)));
	}

	private static List<Message> concat(List<Message> first, List<Message> second) {
		List<Message> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

	private static int same(Message one, Message other) {
		return (one == other) ? 0 : 1;
	}

}
