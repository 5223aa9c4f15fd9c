package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.mantlehooks.ai.FrozenMessagesTurnTests.MessageHooks;
import io.mantlehooks.message.FrozenMessages;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A conversation's history from chat memory is frozen once, not once per turn, through
 * the real OpenAI client and Spring AI's {@code MessageChatMemoryAdvisor}: a later turn's
 * hooks get the very frozen messages of the earlier turn while the window slides, a
 * message whose metadata the application changed between turns is frozen again, the
 * provider is sent exactly what plain Spring AI sends, and concurrent conversations each
 * see only their own history.
 */
class FrozenHistoryTurnTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final List<String> SAID = List.of("my name is Ada", "I live in Paris", "I like tea",
			"what do you know about me?");

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("messageHooks", MessageHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void laterTurnsReuseTheFrozenHistoryAndTheModelIsSentWhatPlainSpringAiSends() {
		List<String> replies = List.of("Hello Ada.", "Paris is nice.", "Tea it is.", "Ada, Paris, tea.");
		// each turn is sent plain, then hooked
		replies.forEach((text) -> this.openAi.reply(Reply.text(text), Reply.text(text)));
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			// a hook that returns the messages it got: the provider gets them thawed
			hooks.modify = (request) -> request.withMessages(new ArrayList<>(request.messages()));
			// a window of 4: the third turn drops the first exchange, so the history
			// moves to other positions in the prompt
			ChatMemory plainMemory = MessageWindowChatMemory.builder().maxMessages(4).build();
			ChatMemory memory = MessageWindowChatMemory.builder().maxMessages(4).build();
			ChatClient plain = ChatClient.builder(context.getBean(ChatModel.class)).build();
			ChatClient hooked = ChatTestSupport.chatClient(context);
			for (int turn = 0; turn < SAID.size(); turn++) {
				if (turn == 3) {
					// the application marks a message it keeps between turns
					plainMemory.get("plain").get(2).getMetadata().put("pinned", true);
					memory.get("c1").get(2).getMetadata().put("pinned", true);
				}
				assertThat(plain.prompt()
					.user(SAID.get(turn))
					.advisors(ChatTestSupport.memory(plainMemory, "plain"))
					.call()
					.content()).isEqualTo(replies.get(turn));
				assertThat(hooked.prompt()
					.user(SAID.get(turn))
					.advisors(ChatTestSupport.memory(memory, "c1"))
					.call()
					.content()).isEqualTo(replies.get(turn));
			}
			// plain and hooked requests alternate: the provider saw the same messages
			assertThat(this.openAi.requests()).hasSize(8);
			for (int turn = 0; turn < SAID.size(); turn++) {
				assertThat(this.openAi.requests().get(2 * turn + 1).get("messages"))
					.isEqualTo(this.openAi.requests().get(2 * turn).get("messages"));
			}
			assertThat(this.openAi.messages(7)).containsExactly("user: I live in Paris", "assistant: Paris is nice.",
					"user: I like tea", "assistant: Tea it is.", "user: what do you know about me?");

			assertThat(hooks.modified).hasSize(4);
			List<Message> third = hooks.modified.get(2);
			List<Message> fourth = hooks.modified.get(3);
			// the hook sees the history memory replays
			assertThat(third).extracting(Message::getText)
				.containsExactly("my name is Ada", "Hello Ada.", "I live in Paris", "Paris is nice.", "I like tea");
			assertThat(fourth).extracting(Message::getText)
				.containsExactly("I live in Paris", "Paris is nice.", "I like tea", "Tea it is.",
						"what do you know about me?");
			// the same frozen messages as the turn before, two positions earlier now
			assertThat(fourth.get(0)).isSameAs(third.get(2));
			assertThat(fourth.get(1)).isSameAs(third.get(3));
			assertThat(hooks.modified.get(1).get(0)).isSameAs(hooks.modified.get(0).get(0));
			assertThat(third.get(0)).isSameAs(hooks.modified.get(1).get(0));
			// the message changed between turns is frozen again, with the change
			assertThat(fourth.get(2)).isNotSameAs(third.get(4));
			assertThat(fourth.get(2).getMetadata()).containsEntry("pinned", true);
			assertThat(third.get(4).getMetadata()).doesNotContainKey("pinned");
			assertThat(fourth).allSatisfy((message) -> assertThat(FrozenMessages.isFrozen(message)).isTrue());
			// the observers got the modify hook's very messages
			await().atMost(WAIT).until(() -> hooks.observed.size() == 4);
			assertThat(hooks.observed.get(3)).usingElementComparator((one, other) -> (one == other) ? 0 : 1)
				.isEqualTo(fourth);
			// memory keeps the turn's own, changeable messages
			for (Message message : memory.get("c1")) {
				assertThat(FrozenMessages.isFrozen(message)).isFalse();
			}
		});
	}

	@Test
	void concurrentConversationsEachSeeOnlyTheirOwnHistory() {
		int conversations = 8;
		int turns = 3;
		for (int i = 0; i < conversations * turns; i++) {
			this.openAi.reply(Reply.text("ok"));
		}
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			hooks.modify = (request) -> request.withMessages(new ArrayList<>(request.messages()));
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClient hooked = ChatTestSupport.chatClient(context);
			ExecutorService threads = Executors.newFixedThreadPool(conversations);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int c = 0; c < conversations; c++) {
					String conversation = "c" + c;
					done.add(threads.submit((Callable<Void>) () -> {
						for (int turn = 0; turn < turns; turn++) {
							hooked.prompt()
								.user(conversation + " says " + turn)
								.advisors(ChatTestSupport.memory(memory, conversation))
								.call()
								.content();
						}
						return null;
					}));
				}
				for (Future<?> future : done) {
					future.get();
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(this.openAi.requests()).hasSize(conversations * turns);
			for (int i = 0; i < conversations * turns; i++) {
				List<String> users = this.openAi.messages(i)
					.stream()
					.filter((line) -> line.startsWith("user: "))
					.toList();
				String conversation = users.get(0).substring("user: ".length()).split(" ")[0];
				List<String> expected = new ArrayList<>();
				for (int turn = 0; turn < users.size(); turn++) {
					expected.add("user: " + conversation + " says " + turn);
				}
				assertThat(users).isEqualTo(expected);
			}
			assertThat(hooks.modified).hasSize(conversations * turns).allSatisfy((messages) -> {
				String conversation = messages.get(0).getText().split(" ")[0];
				assertThat(messages).filteredOn((message) -> !"ok".equals(message.getText()))
					.allSatisfy((message) -> assertThat(message.getText()).startsWith(conversation + " says "));
			});
		});
	}

}
