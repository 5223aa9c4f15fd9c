package io.mantlehooks.message;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.Channel;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelSettings;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.content.Media;
import org.springframework.util.MimeTypeUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Frozen messages: the same type and content as their source, read-only getters whose
 * refusal says what to do, ordinary changeable copies, and freezing once: a frozen list,
 * and a history kept from the turn's previous model call, are not frozen again.
 */
class FrozenMessagesTests {

	private static final Media IMAGE = Media.builder()
		.mimeType(MimeTypeUtils.IMAGE_PNG)
		.data(URI.create("https://example.com/receipt.png"))
		.build();

	private static final AssistantMessage.ToolCall CALL = new AssistantMessage.ToolCall("call_1", "function",
			"get_weather", "{\"city\":\"Paris\"}");

	static UserMessage user() {
		return UserMessage.builder()
			.text("what is on this receipt?")
			.media(IMAGE)
			.metadata(new HashMap<>(Map.of("k", "v")))
			.build();
	}

	static AssistantMessage assistant() {
		return AssistantMessage.builder()
			.content("let me look")
			.properties(Map.of("finishReason", "TOOL_CALLS"))
			.toolCalls(List.of(CALL))
			.media(List.of(IMAGE))
			.build();
	}

	static ToolResponseMessage toolResponse() {
		return ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("call_1", "get_weather", "{\"sky\":\"clear\"}")))
			.metadata(Map.of("k", "v"))
			.build();
	}

	static SystemMessage system() {
		return SystemMessage.builder().text("be brief").metadata(Map.of("k", "v")).build();
	}

	static List<Message> sources() {
		return List.of(system(), user(), assistant(), toolResponse());
	}

	@Test
	void messagesWithNothingButTheirTypeFreezeAsTheirSourceAndAReplacedTypeEntryIsCopied() {
		UserMessage user = new UserMessage("hi");
		SystemMessage system = new SystemMessage("be brief");
		UserMessage retyped = new UserMessage("odd");
		retyped.getMetadata().put("messageType", "custom");
		List<Message> sources = List.of(user, system, retyped);
		List<Message> frozen = FrozenMessages.freeze(sources);
		for (int i = 0; i < sources.size(); i++) {
			assertThat(frozen.get(i)).isEqualTo(sources.get(i)).hasSameHashCodeAs(sources.get(i));
			assertThat(frozen.get(i).getMetadata()).isEqualTo(sources.get(i).getMetadata());
			assertThat(((FrozenMessage) frozen.get(i)).matchesSource()).isTrue();
		}
		assertThat(frozen.get(2).getMetadata()).containsExactly(Map.entry("messageType", "custom"));
		assertThat(((UserMessage) frozen.get(0)).getMedia()).isEmpty();
	}

	@Test
	void aFrozenMessageIsItsSourceInEverythingButChangeability() {
		List<Message> sources = sources();
		List<Message> frozen = FrozenMessages.freeze(sources);
		for (int i = 0; i < sources.size(); i++) {
			Message source = sources.get(i);
			Message copy = frozen.get(i);
			assertThat(copy).isNotSameAs(source).isInstanceOf(source.getClass()).isEqualTo(source);
			assertThat(source).isEqualTo(copy);
			assertThat(copy).hasSameHashCodeAs(source).hasToString(source.toString());
			assertThat(copy.getText()).isEqualTo(source.getText());
			assertThat(copy.getMessageType()).isEqualTo(source.getMessageType());
			assertThat(copy.getMetadata()).isEqualTo(source.getMetadata());
			assertThat(FrozenMessages.isFrozen(copy)).isTrue();
			assertThat(FrozenMessages.isFrozen(source)).isFalse();
		}
		assertThat(((UserMessage) frozen.get(1)).getMedia()).containsExactly(IMAGE);
		assertThat(((AssistantMessage) frozen.get(2)).getToolCalls()).containsExactly(CALL);
		assertThat(((AssistantMessage) frozen.get(2)).getMedia()).containsExactly(IMAGE);
		assertThat(((ToolResponseMessage) frozen.get(3)).getResponses())
			.isEqualTo(((ToolResponseMessage) sources.get(3)).getResponses());
	}

	@Test
	void changingAFrozenMessageInPlaceFailsAndSaysWhatToDo() {
		List<Message> frozen = FrozenMessages.freeze(sources());
		for (Message message : frozen) {
			assertRefused(() -> message.getMetadata().put("tampered", true));
			assertRefused(() -> message.getMetadata().remove("k"));
			assertRefused(() -> message.getMetadata().putIfAbsent("tampered", true));
			assertRefused(() -> message.getMetadata().clear());
		}
		assertRefused(() -> ((UserMessage) frozen.get(1)).getMedia().add(IMAGE));
		assertRefused(() -> ((UserMessage) frozen.get(1)).getMedia().clear());
		assertRefused(() -> ((AssistantMessage) frozen.get(2)).getToolCalls().add(CALL));
		assertRefused(() -> ((AssistantMessage) frozen.get(2)).getToolCalls().set(0, CALL));
		assertRefused(() -> ((ToolResponseMessage) frozen.get(3)).getResponses().remove(0));
		assertRefused(() -> frozen.add(new UserMessage("more")));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> frozen.get(1).getMetadata().entrySet().clear());
		assertThat(frozen.get(1).getMetadata()).containsEntry("k", "v").doesNotContainKey("tampered");
	}

	@Test
	void copiesOfAFrozenMessageAreOrdinaryMessagesWithAllTheContent() {
		List<Message> sources = sources();
		List<Message> frozen = FrozenMessages.freeze(sources);
		UserMessage user = ((UserMessage) frozen.get(1)).copy();
		UserMessage rebuilt = ((UserMessage) frozen.get(1)).mutate().text("changed").build();
		AssistantMessage assistant = ((AssistantMessage) frozen.get(2)).copy();
		SystemMessage system = ((SystemMessage) frozen.get(0)).mutate().build();
		assertThat(user).isEqualTo(sources.get(1));
		assertThat(assistant).isEqualTo(sources.get(2));
		assertThat(system).isEqualTo(sources.get(0));
		for (Message copy : List.of(user, rebuilt, assistant, system, ((SystemMessage) frozen.get(0)).copy())) {
			assertThat(FrozenMessages.isFrozen(copy)).isFalse();
			copy.getMetadata().put("changed", true);
			assertThat(copy.getMetadata()).containsEntry("changed", true);
		}
		assertThat(user.getMedia()).containsExactly(IMAGE);
		assertThat(rebuilt.getText()).isEqualTo("changed");
		assertThat(rebuilt.getMedia()).containsExactly(IMAGE);
		assertThat(rebuilt.getMetadata()).containsEntry("k", "v");
		assertThat(assistant.getToolCalls()).containsExactly(CALL);
		assertThat(assistant.getMedia()).containsExactly(IMAGE);
		assistant.getToolCalls().add(CALL);
		assertThat(assistant.getToolCalls()).hasSize(2);
		assertThat(((AssistantMessage) frozen.get(2)).getToolCalls()).containsExactly(CALL);
		assertThat(system.getText()).isEqualTo("be brief");
		assertThat(system.getMetadata()).containsEntry("k", "v");
		assertThat(frozen.get(0).getMetadata()).doesNotContainKey("changed");
	}

	@Test
	void laterChangesToTheSourceDoNotReachTheFrozenMessage() {
		UserMessage source = user();
		Message frozen = FrozenMessages.freeze(List.of(source)).get(0);
		source.getMetadata().put("later", true);
		source.getMedia().clear();
		assertThat(frozen.getMetadata()).doesNotContainKey("later");
		assertThat(((UserMessage) frozen).getMedia()).containsExactly(IMAGE);
	}

	@Test
	void thawingGivesTheSources() {
		List<Message> sources = sources();
		List<Message> thawed = FrozenMessages.thaw(FrozenMessages.freeze(sources));
		for (int i = 0; i < sources.size(); i++) {
			assertThat(thawed.get(i)).isSameAs(sources.get(i));
		}
	}

	@Test
	void aFrozenListIsNotFrozenAgain() {
		List<Message> frozen = FrozenMessages.freeze(sources());
		assertThat(FrozenMessages.freeze(frozen)).isSameAs(frozen);
		List<Message> mixed = new ArrayList<>(frozen);
		UserMessage added = new UserMessage("one more");
		mixed.add(added);
		List<Message> again = FrozenMessages.freeze(mixed);
		for (int i = 0; i < frozen.size(); i++) {
			assertThat(again.get(i)).isSameAs(frozen.get(i));
		}
		assertThat(FrozenMessages.isFrozen(again.get(4))).isTrue();
		assertThat(FrozenMessages.thaw(again).get(4)).isSameAs(added);
	}

	@Test
	void aHistoryKeptFromTheTurnsPreviousModelCallIsFrozenOnce() {
		List<Message> history = history(100);
		List<Message> first = FrozenMessages.freeze(history);
		List<Message> next = new ArrayList<>(history);
		next.set(50, new UserMessage("replaced"));
		next.add(new AssistantMessage("a tool call"));
		List<Message> second = FrozenMessages.freeze(next, first);
		for (int i = 0; i < 100; i++) {
			if (i == 50) {
				assertThat(second.get(i)).isNotSameAs(first.get(i));
				assertThat(second.get(i).getText()).isEqualTo("replaced");
			}
			else {
				assertThat(second.get(i)).isSameAs(first.get(i));
			}
		}
		assertThat(second.get(100).getText()).isEqualTo("a tool call");
		assertThat(FrozenMessages.isFrozen(second.get(100))).isTrue();
	}

	@Test
	void everyPayloadMadeFromAFrozenOneSharesItsMessages() {
		ModelRequestPayload payload = new ModelRequestPayload(history(100), ModelSettings.empty(), List.of(), 1,
				"user-42", Map.of(), Channel.of("rest"));
		ModelRequestPayload settings = payload.withModelSettings(ModelSettings.empty().withTemperature(0.1));
		List<Message> replaced = new ArrayList<>(payload.messages());
		replaced.set(99, new UserMessage("redacted"));
		ModelRequestPayload rewritten = payload.withMessages(replaced);
		assertThat(settings.messages()).isSameAs(payload.messages());
		for (int i = 0; i < 99; i++) {
			assertThat(rewritten.messages().get(i)).isSameAs(payload.messages().get(i));
		}
		assertThat(rewritten.messages()).allSatisfy((message) -> assertThat(FrozenMessages.isFrozen(message)).isTrue());
	}

	@Test
	void aMessageNobodyReadsIsNeverCopiedAndTheProviderGetsItsSource() {
		List<Message> history = history(100);
		ModelRequestPayload payload = new ModelRequestPayload(history, ModelSettings.empty(), List.of(), 1, "user-42",
				Map.of(), Channel.of("rest"));
		FrozenMessageList messages = (FrozenMessageList) payload.messages();
		assertThat(messages.frozenCount()).isZero();
		assertThat(messages.madeSlots()).isFalse();
		// a hook that looks at the last message only
		Message last = messages.get(99);
		assertThat(FrozenMessages.isFrozen(last)).isTrue();
		assertThat(last.getText()).isEqualTo("answer 99");
		assertThat(messages.frozenCount()).isEqualTo(1);
		List<Message> sent = FrozenMessages.thaw(messages);
		for (int i = 0; i < 100; i++) {
			assertThat(sent.get(i)).isSameAs(history.get(i));
		}
		assertThat(messages.frozenCount()).as("thawing freezes nothing").isEqualTo(1);
		// what a rewriting hook returns and nobody reads after it is sent without a copy
		List<Message> rewritten = new ArrayList<>(List.of(last));
		UserMessage redacted = new UserMessage("redacted");
		rewritten.add(redacted);
		FrozenMessageList returned = (FrozenMessageList) payload.withMessages(rewritten).messages();
		assertThat(FrozenMessages.thaw(returned)).containsExactly(history.get(99), redacted);
		assertThat(returned.frozenCount()).isZero();
		// and the frozen message it kept is read as it is, with no slots made for it
		assertThat(returned.get(0)).isSameAs(last);
		assertThat(returned.madeSlots()).isFalse();
		Message read = returned.get(1);
		assertThat(read).isNotSameAs(redacted).isEqualTo(redacted);
		assertThat(FrozenMessages.isFrozen(read)).isTrue();
		assertThat(returned.get(1)).isSameAs(read);
		assertThat(returned.frozenCount()).isOne();
	}

	@Test
	void aMessageIsFrozenWhenFirstReadAndEveryReaderGetsThatCopy() {
		UserMessage source = user();
		List<Message> frozen = FrozenMessages.freeze(List.of(source));
		// a change to the source before anyone read it is what the first reader sees
		source.getMetadata().put("before", true);
		Message first = frozen.get(0);
		source.getMetadata().put("after", true);
		assertThat(first.getMetadata()).containsKey("before").doesNotContainKey("after");
		assertThat(frozen.get(0)).isSameAs(first);
		assertThat(frozen).containsExactly(first);
		assertThat(frozen.toArray()).containsExactly(first);
	}

	@Test
	void readersOnManyThreadsShareOneFrozenMessagePerPosition() throws Exception {
		ExecutorService readers = Executors.newFixedThreadPool(8);
		try {
			for (int trial = 0; trial < 300; trial++) {
				List<Message> frozen = FrozenMessages.freeze(history(4));
				CountDownLatch start = new CountDownLatch(1);
				List<Future<List<Message>>> seen = new ArrayList<>();
				for (int reader = 0; reader < 8; reader++) {
					seen.add(readers.submit(() -> {
						start.await();
						return List.of(frozen.get(3), frozen.get(2), frozen.get(1), frozen.get(0));
					}));
				}
				start.countDown();
				List<Message> expected = List.of(frozen.get(3), frozen.get(2), frozen.get(1), frozen.get(0));
				for (Future<List<Message>> one : seen) {
					List<Message> messages = one.get(30, TimeUnit.SECONDS);
					for (int i = 0; i < 4; i++) {
						assertThat(messages.get(i)).isSameAs(expected.get(i));
					}
				}
				assertThat(frozen).allSatisfy((message) -> assertThat(FrozenMessages.isFrozen(message)).isTrue());
			}
		}
		finally {
			readers.shutdownNow();
		}
	}

	@Test
	void aNullMessageIsRefusedWhenThePayloadIsMadeNotWhenItIsRead() {
		List<Message> withNull = new ArrayList<>(history(2));
		withNull.add(null);
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> FrozenMessages.freeze(withNull))
			.withMessage("messages must not contain null");
	}

	static List<Message> history(int size) {
		List<Message> history = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			history.add((i % 2 == 0) ? UserMessage.builder().text("question " + i).metadata(Map.of("turn", i)).build()
					: AssistantMessage.builder().content("answer " + i).properties(Map.of("turn", i)).build());
		}
		return history;
	}

	private static void assertRefused(Runnable change) {
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(change::run)
			.withMessageContaining("read-only")
			.withMessageContaining("mutate()")
			.withMessageContaining("withMessages(");
	}

}
