package io.mantlehooks.ai;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.content.Media;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.MimeTypeUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Model-request hooks share the turn's messages, frozen once per turn, through the real
 * OpenAI client: a hook that changes a message in place fails by its policy and reaches
 * neither the model nor another hook, every hook of a long conversation gets the very
 * same messages (no copy per invocation, none per model call of the turn), and media,
 * tool calls and tool responses reach the provider exactly as without hooks.
 */
@ExtendWith(OutputCaptureExtension.class)
class FrozenMessagesTurnTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final String GUIDANCE = "return payload.withMessages(...)";

	private static final Media RECEIPT = Media.builder()
		.mimeType(MimeTypeUtils.IMAGE_PNG)
		.data(URI.create("https://example.com/receipt.png"))
		.build();

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("messageHooks", MessageHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void aModifyHookChangingAMessageInPlaceFailsClosedAndTheModelIsNeverCalled(CapturedOutput output) {
		this.openAi.reply(Reply.text("never sent"));
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			hooks.modify = (request) -> {
				request.messages().get(0).getMetadata().put("tampered", true);
				return request;
			};
			List<Message> history = history(4);
			String reply = chatClient(context).prompt().messages(history).user("hi").call().content();
			// the model-request point fails closed: the packaged reply, no provider call
			assertThat(reply).isEqualTo("Sorry, something went wrong on our side. Please try again.");
			assertThat(this.openAi.requests()).isEmpty();
			assertThat(history.get(0).getMetadata()).doesNotContainKey("tampered");
			assertThat(output).contains(
					"Modify hook 'messageHooks.request' at point model-request failed; applying the fail policy CLOSED")
				.contains(GUIDANCE);
		});
	}

	@Test
	void anObserverChangingAMessageInPlaceFailsAloneAndReachesNeitherTheModelNorAnotherHook(CapturedOutput output) {
		this.openAi.reply(Reply.text("Hello."));
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			hooks.tamperingObserver = true;
			List<Message> history = history(4);
			String reply = chatClient(context).prompt().messages(history).user("hi").call().content();
			assertThat(reply).isEqualTo("Hello.");
			assertThat(hooks.tampered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			await().atMost(WAIT).until(() -> hooks.observedToo.size() == 1);
			assertThat(hooks.refused.get()).isInstanceOf(UnsupportedOperationException.class);
			// the other observer looked after the change was tried: it sees none
			assertThat(hooks.observedToo.get(0).get(0).getMetadata()).doesNotContainKey("tampered");
			assertThat(history.get(0).getMetadata()).doesNotContainKey("tampered");
			assertThat(this.openAi.messages(0)).containsExactly("user: question 0", "assistant: answer 1",
					"user: question 2", "assistant: answer 3", "user: hi");
			await().atMost(WAIT)
				.until(() -> output.toString()
					.contains("Observe hook 'messageHooks.watch' at point model-request failed"));
			assertThat(output).contains(GUIDANCE);
		});
	}

	@Test
	void everyHookOfALongConversationGetsTheSameMessagesInEveryModelCallOfTheTurn() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}")),
				Reply.text("A1 is on its way."));
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			hooks.modify = (request) -> request.withMessages(request.messages()
				.stream()
				.map((message) -> (message instanceof UserMessage user && user.getText().contains("4111"))
						? (Message) user.mutate().text(user.getText().replace("4111", "[card]")).build() : message)
				.toList());
			List<Message> history = history(100);
			String reply = chatClient(context).prompt()
				.messages(history)
				.user("card 4111: where is A1?")
				.tools(new OrderTools())
				.call()
				.content();
			assertThat(reply).isEqualTo("A1 is on its way.");
			await().atMost(WAIT).until(() -> hooks.observed.size() == 2 && hooks.observedToo.size() == 2);
			assertThat(hooks.modified).hasSize(2);
			List<Message> first = hooks.modified.get(0);
			assertThat(first).hasSize(101);
			// the second model call's hook gets the history frozen for the first one, and
			// the observers the very messages the modify hook got: nothing is copied per
			// invocation or per model call
			for (List<Message> seen : List.of(hooks.modified.get(1), hooks.observed.get(0), hooks.observed.get(1),
					hooks.observedToo.get(0), hooks.observedToo.get(1))) {
				for (int i = 0; i < 100; i++) {
					assertThat(seen.get(i)).isSameAs(first.get(i));
				}
			}
			assertThat(hooks.modified.get(1)).hasSize(103);
			// the rewrite reached the provider in both calls, the history as it was
			assertThat(this.openAi.messages(0)).hasSize(101)
				.startsWith("user: question 0", "assistant: answer 1")
				.endsWith("assistant: answer 99", "user: card [card]: where is A1?");
			assertThat(this.openAi.messages(1)).hasSize(103)
				.endsWith("user: card [card]: where is A1?", "assistant: [lookup({\"id\":\"A1\"})]",
						"tool: \"A1 found\"");
		});
	}

	@Test
	void mediaToolCallsAndToolResponsesReachTheModelAsWithoutHooks() {
		this.openAi.reply(Reply.text("one"), Reply.text("two"), Reply.text("three"));
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			// plain Spring AI, no hook advisor: what the provider is sent without hooks
			ChatClient plain = ChatClient.builder(context.getBean(ChatModel.class)).build();
			plain.prompt().messages(richHistory()).user("and now?").call().content();
			// a hook that returns the messages it got
			hooks.modify = (request) -> request.withMessages(new ArrayList<>(request.messages()));
			chatClient(context).prompt().messages(richHistory()).user("and now?").call().content();
			// a hook that rebuilds every message from its frozen copy
			hooks.modify = (request) -> request
				.withMessages(request.messages().stream().map(FrozenMessagesTurnTests::rebuilt).toList());
			chatClient(context).prompt().messages(richHistory()).user("and now?").call().content();
			assertThat(hooks.modified).hasSize(2);
			Object withoutHooks = this.openAi.requests().get(0).get("messages");
			assertThat(this.openAi.requests().get(1).get("messages")).isEqualTo(withoutHooks);
			assertThat(this.openAi.requests().get(2).get("messages")).isEqualTo(withoutHooks);
			assertThat(this.openAi.requestBody(2)).contains("https://example.com/receipt.png")
				.contains("\"tool_call_id\":\"call_1\"")
				.contains("{\\\"id\\\":\\\"A1\\\"}")
				.contains("A1 found");
		});
	}

	@Test
	void chatMemoryKeepsOrdinaryMessagesAndReplaysThemToTheModel() {
		this.openAi.reply(Reply.text("Noted."), Reply.text("You said 4111."));
		this.contextRunner.run((context) -> {
			MessageHooks hooks = context.getBean(MessageHooks.class);
			hooks.modify = (request) -> request.withMessages(new ArrayList<>(request.messages()));
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			chatClient(context).prompt()
				.user("remember 4111")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			String reply = chatClient(context).prompt()
				.user("what did I say?")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			assertThat(reply).isEqualTo("You said 4111.");
			assertThat(this.openAi.messages(1)).containsExactly("user: remember 4111", "assistant: Noted.",
					"user: what did I say?");
			List<Message> kept = memory.get("c1");
			assertThat(kept).extracting(Message::getText)
				.containsExactly("remember 4111", "Noted.", "what did I say?", "You said 4111.");
			// memory holds the turn's own messages, changeable as Spring AI made them
			for (Message message : kept) {
				message.getMetadata().put("seen", true);
				assertThat(message.getMetadata()).containsEntry("seen", true);
			}
		});
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	static List<Message> history(int size) {
		List<Message> history = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			history.add((i % 2 == 0)
					? UserMessage.builder().text("question " + i).metadata(new HashMap<>(Map.of("turn", i))).build()
					: AssistantMessage.builder().content("answer " + i).properties(Map.of("turn", i)).build());
		}
		return history;
	}

	static List<Message> richHistory() {
		return List.of(SystemMessage.builder().text("Be brief.").build(),
				UserMessage.builder().text("what is on this receipt?").media(RECEIPT).build(),
				AssistantMessage.builder()
					.content("")
					.toolCalls(
							List.of(new AssistantMessage.ToolCall("call_1", "function", "lookup", "{\"id\":\"A1\"}")))
					.build(),
				ToolResponseMessage.builder()
					.responses(List.of(new ToolResponseMessage.ToolResponse("call_1", "lookup", "A1 found")))
					.build(),
				new AssistantMessage("A1 is on the receipt."));
	}

	static Message rebuilt(Message message) {
		if (message instanceof UserMessage user) {
			return user.mutate().build();
		}
		if (message instanceof AssistantMessage assistant) {
			return assistant.copy();
		}
		if (message instanceof SystemMessage system) {
			return system.copy();
		}
		ToolResponseMessage toolResponse = (ToolResponseMessage) message;
		return ToolResponseMessage.builder()
			.responses(toolResponse.getResponses())
			.metadata(toolResponse.getMetadata())
			.build();
	}

	static class MessageHooks {

		volatile UnaryOperator<ModelRequestPayload> modify = UnaryOperator.identity();

		volatile boolean tamperingObserver;

		final List<List<Message>> modified = new CopyOnWriteArrayList<>();

		final List<List<Message>> observed = new CopyOnWriteArrayList<>();

		final List<List<Message>> observedToo = new CopyOnWriteArrayList<>();

		final CountDownLatch tampered = new CountDownLatch(1);

		final AtomicReference<RuntimeException> refused = new AtomicReference<>();

		@ModifyModelRequest
		ModelRequestPayload request(ModelRequestPayload request) {
			this.modified.add(request.messages());
			return this.modify.apply(request);
		}

		@OnModelRequest
		void watch(ModelRequestPayload request) {
			this.observed.add(request.messages());
			if (!this.tamperingObserver) {
				return;
			}
			try {
				request.messages().get(0).getMetadata().put("tampered", true);
			}
			catch (RuntimeException ex) {
				this.refused.set(ex);
				throw ex;
			}
			finally {
				this.tampered.countDown();
			}
		}

		@OnModelRequest
		void watchToo(ModelRequestPayload request) throws InterruptedException {
			if (this.tamperingObserver) {
				this.tampered.await(60, TimeUnit.SECONDS);
			}
			this.observedToo.add(request.messages());
		}

	}

	static class OrderTools {

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			return id + " found";
		}

	}

}
