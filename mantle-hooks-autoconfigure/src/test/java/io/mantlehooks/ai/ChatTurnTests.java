package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.ai.chat.MantleChatClientCustomizer;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Chat turns through Boot's auto-configured {@code ChatClient.Builder} and the real
 * Spring AI OpenAI client, against a local OpenAI-protocol server: what the provider
 * received, what the caller received, which hooks ran and what chat memory kept.
 */
class ChatTurnTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withPropertyValues("mantle.hooks.responses.utter_spam_rejected=No spam, please.")
		.withBean("scriptedHooks", ScriptedHooks.class)
		.withBean("recordingObservers", RecordingObservers.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void plainTurnRunsEveryPointInOrderAndCarriesIdentity() {
		this.openAi.reply(Reply.text("Hello there."));
		this.contextRunner.run((context) -> {
			ChatClientResponse response = chatClient(context).prompt()
				.user("Hi")
				.advisors(MantleHooks.identity("user-42", Channel.of("rest"), Map.of("callId", "c-1")))
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo("Hello there.");
			assertThat(response.context()).containsKey(MantleHooks.TURN_ID).doesNotContainKey(MantleHooks.OUTCOME);
			ScriptedHooks hooks = hooks(context);
			assertThat(hooks.calls).containsExactly("incoming-message", "model-request#1", "model-response",
					"outgoing-text:Hello there.");
			assertThat(hooks.payloads).allSatisfy((payload) -> {
				HookPayload hookPayload = (HookPayload) payload;
				assertThat(hookPayload.senderId()).isEqualTo("user-42");
				assertThat(hookPayload.channel()).isEqualTo(Channel.of("rest"));
				assertThat(hookPayload.call()).containsEntry("callId", "c-1");
			});
			RecordingObservers observers = observers(context);
			observers.awaitTurns(1, WAIT);
			TurnStartedPayload started = observers.of(TurnStartedPayload.class).get(0);
			TurnFinishedPayload finished = observers.of(TurnFinishedPayload.class).get(0);
			assertThat(finished.turnId()).isEqualTo(started.turnId())
				.isEqualTo(response.context().get(MantleHooks.TURN_ID));
			assertThat(finished.status()).isEqualTo(TurnStatus.COMPLETED);
			assertThat(started.senderId()).isEqualTo("user-42");
		});
	}

	@Test
	void senderIdFallsBackToTheConversationId() {
		this.openAi.reply(Reply.text("Hi."));
		this.contextRunner.run((context) -> {
			chatClient(context).prompt()
				.user("Hi")
				.advisors((spec) -> spec.param(ChatMemory.CONVERSATION_ID, "conv-9"))
				.call()
				.content();
			assertThat(hooks(context).payloads)
				.allSatisfy((payload) -> assertThat(((HookPayload) payload).senderId()).isEqualTo("conv-9"));
		});
	}

	@Test
	void incomingRewriteIsWhatTheModelAndMemorySee() {
		this.openAi.reply(Reply.text("Noted."));
		this.contextRunner.run((context) -> {
			hooks(context).incoming = (message) -> message.withText(message.text().replace("4111", "[card]"));
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			chatClient(context).prompt()
				.user("my card is 4111")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			assertThat(this.openAi.messages(0)).containsExactly("user: my card is [card]");
			assertThat(texts(memory.get("c1"))).containsExactly("USER: my card is [card]", "ASSISTANT: Noted.");
		});
	}

	@Test
	void discardedFlagInIncomingMetadataIsRemovedBeforeHooksRun() {
		this.openAi.reply(Reply.text("Ok."));
		this.contextRunner.run((context) -> {
			UserMessage message = UserMessage.builder()
				.text("hi")
				.metadata(Map.of("discarded", true, "source", "web"))
				.build();
			chatClient(context).prompt()
				.messages(message)
				.advisors(MantleHooks.identity("u1", new Channel("rest", Map.of("discarded", true, "tenant", "a"))))
				.call()
				.content();
			IncomingMessagePayload incoming = (IncomingMessagePayload) hooks(context).payloads.get(0);
			assertThat(incoming.channel().metadata()).containsOnlyKeys("tenant");
		});
	}

	@Test
	void rejectedIncomingMessageNeverReachesTheModelNorMemory() {
		this.contextRunner.run((context) -> {
			ScriptedHooks hooks = hooks(context);
			hooks.incoming = (message) -> {
				throw new HookRejection("spam detected", "utter_spam_rejected");
			};
			hooks.outgoing = (text) -> text.withText(text.text() + " [checked]");
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClientResponse response = chatClient(context).prompt()
				.user("buy cheap pills")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText())
				.isEqualTo("No spam, please. [checked]");
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "rejected")
				.containsEntry(MantleHooks.REASON, "spam detected");
			assertThat(this.openAi.requests()).isEmpty();
			assertThat(memory.get("c1")).isEmpty();
			assertThat(hooks.calls).containsExactly("incoming-message", "outgoing-text:No spam, please.");
			RecordingObservers observers = observers(context);
			await().atMost(WAIT).until(() -> !observers.of(OutgoingTextPayload.class).isEmpty());
			assertThat(observers.of(TurnStartedPayload.class)).isEmpty();
			assertThat(observers.of(TurnFinishedPayload.class)).isEmpty();
		});
	}

	@Test
	void crashingIncomingHookIsARejectionWithThePackagedReply() {
		this.contextRunner.run((context) -> {
			hooks(context).incoming = (message) -> {
				throw new IllegalStateException("classifier down: secret-host:5432");
			};
			ChatClientResponse response = chatClient(context).prompt().user("hello").call().chatClientResponse();
			String text = response.chatResponse().getResult().getOutput().getText();
			assertThat(text).isEqualTo("Sorry, I can't help with that request.").doesNotContain("secret-host");
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(this.openAi.requests()).isEmpty();
		});
	}

	@Test
	void modelRequestRewriteAndSettingsAreWhatTheProviderReceives() {
		this.openAi.reply(Reply.text("Cool."));
		this.contextRunner.run((context) -> {
			hooks(context).request = (request) -> request
				.withMessages(List.<Message>of(new SystemMessage("Be terse."),
						request.messages().get(request.messages().size() - 1)))
				.withModelSettings(request.modelSettings()
					.withTemperature(0.2)
					.withTopP(0.5)
					.withMaxTokens(64)
					.withStop(List.of("END"))
					.withSeed(7L));
			chatClient(context).prompt()
				.system("You are a pirate.")
				.user("Hi")
				.options(OpenAiChatOptions.builder().temperature(0.9).presencePenalty(0.1))
				.call()
				.content();
			Map<String, Object> sent = this.openAi.requests().get(0);
			assertThat(this.openAi.messages(0)).containsExactly("system: Be terse.", "user: Hi");
			assertThat(sent).containsEntry("temperature", 0.2)
				.containsEntry("top_p", 0.5)
				.containsEntry("max_tokens", 64)
				.containsEntry("seed", 7)
				.containsEntry("presence_penalty", 0.1)
				.containsEntry("model", "fake-model");
			assertThat(String.valueOf(sent.get("stop"))).contains("END");
		});
	}

	@Test
	void crashingModelRequestHookSkipsTheModelCall() {
		this.contextRunner.run((context) -> {
			hooks(context).request = (request) -> {
				throw new IllegalStateException("boom");
			};
			ChatClientResponse response = chatClient(context).prompt().user("Hi").call().chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText())
				.isEqualTo("Sorry, something went wrong on our side. Please try again.");
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(this.openAi.requests()).isEmpty();
			assertThat(hooks(context).calls).containsExactly("incoming-message", "model-request#1",
					"outgoing-text:Sorry, something went wrong on our side. Please try again.");
		});
	}

	@Test
	void signalFromModelRequestHookIsIgnoredAndTheCallProceeds() {
		this.openAi.reply(Reply.text("Fine."));
		this.contextRunner.run((context) -> {
			hooks(context).request = (request) -> {
				throw new RetryModel("not allowed here");
			};
			String reply = chatClient(context).prompt().user("Hi").call().content();
			assertThat(reply).isEqualTo("Fine.");
			assertThat(this.openAi.messages(0)).containsExactly("user: Hi");
		});
	}

	@Test
	void modelResponseRewriteIsWhatTheUserAndMemoryGet() {
		this.openAi.reply(Reply.text("The answer is 42."));
		this.contextRunner.run((context) -> {
			hooks(context).response = (response) -> response.withText(response.text().replace("42", "forty-two"));
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			String reply = chatClient(context).prompt()
				.user("What is it?")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			assertThat(reply).isEqualTo("The answer is forty-two.");
			assertThat(texts(memory.get("c1"))).containsExactly("USER: What is it?",
					"ASSISTANT: The answer is forty-two.");
		});
	}

	@Test
	void retryModelSendsFeedbackOnTheNextRequestOnly() {
		this.openAi.reply(Reply.text("Paris, probably."), Reply.text("According to the atlas, Paris."),
				Reply.text("Second turn."));
		this.contextRunner.run((context) -> {
			hooks(context).response = (response) -> {
				if (!response.text().startsWith("According to")) {
					throw new RetryModel("Cite your source.");
				}
				return response;
			};
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClient chatClient = chatClient(context);
			String reply = chatClient.prompt()
				.user("Capital of France?")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			assertThat(reply).isEqualTo("According to the atlas, Paris.");
			assertThat(this.openAi.messages(0)).containsExactly("user: Capital of France?");
			assertThat(this.openAi.messages(1)).containsExactly("user: Capital of France?",
					"system: Cite your source.");
			assertThat(texts(memory.get("c1"))).containsExactly("USER: Capital of France?",
					"ASSISTANT: According to the atlas, Paris.");
			assertThat(hooks(context).calls).containsExactly("incoming-message", "model-request#1", "model-response",
					"model-request#2", "model-response", "outgoing-text:According to the atlas, Paris.");
			hooks(context).response = UnaryOperator.identity();
			chatClient.prompt().user("And Spain?").advisors(ChatTestSupport.memory(memory, "c1")).call().content();
			assertThat(this.openAi.messages(2)).containsExactly("user: Capital of France?",
					"assistant: According to the atlas, Paris.", "user: And Spain?");
		});
	}

	@Test
	void crashingModelResponseHookKeepsTheOriginal() {
		this.openAi.reply(Reply.text("Original."));
		this.contextRunner.run((context) -> {
			hooks(context).response = (response) -> {
				throw new IllegalStateException("boom");
			};
			assertThat(chatClient(context).prompt().user("Hi").call().content()).isEqualTo("Original.");
		});
	}

	@Test
	void retriesStopAtMaxIterations() {
		this.openAi.reply(Reply.text("one"), Reply.text("two"), Reply.text("three"));
		this.contextRunner.withPropertyValues("mantle.hooks.max-iterations=2").run((context) -> {
			hooks(context).response = (response) -> {
				throw new RetryModel("Try again.");
			};
			String reply = chatClient(context).prompt().user("Hi").call().content();
			assertThat(reply).isEqualTo("Sorry, I couldn't finish that request. Please try rephrasing it.");
			assertThat(this.openAi.requests()).hasSize(2);
		});
	}

	@Test
	void outgoingRewriteIsWhatTheUserAndMemoryGet() {
		this.openAi.reply(Reply.text("Call me at 555-1234."));
		this.contextRunner.run((context) -> {
			hooks(context).outgoing = (text) -> text.withText(text.text().replace("555-1234", "[phone]"));
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			String reply = chatClient(context).prompt()
				.user("Number?")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.content();
			assertThat(reply).isEqualTo("Call me at [phone].");
			assertThat(texts(memory.get("c1"))).containsExactly("USER: Number?", "ASSISTANT: Call me at [phone].");
		});
	}

	@Test
	void rejectedOutgoingTextIsReplacedAndTheReplacementPassesTheHookAgain() {
		this.openAi.reply(Reply.text("The password is hunter2."));
		this.contextRunner.run((context) -> {
			hooks(context).outgoing = (text) -> {
				if (text.text().contains("password")) {
					throw new HookRejection("leak");
				}
				return text.withText(text.text() + " (reviewed)");
			};
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClientResponse response = chatClient(context).prompt()
				.user("Password?")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText())
				.isEqualTo("Sorry, I can't share that response. (reviewed)");
			assertThat(response.context()).containsEntry(MantleHooks.OUTCOME, "rejected")
				.containsEntry(MantleHooks.REASON, "leak");
			assertThat(texts(memory.get("c1"))).containsExactly("USER: Password?",
					"ASSISTANT: Sorry, I can't share that response. (reviewed)");
		});
	}

	@Test
	void replacementRejectedAgainSendsAndStoresNothing() {
		this.openAi.reply(Reply.text("Secret."));
		this.contextRunner.run((context) -> {
			hooks(context).outgoing = (text) -> {
				throw new HookRejection("everything is secret");
			};
			ChatMemory memory = MessageWindowChatMemory.builder().build();
			ChatClientResponse response = chatClient(context).prompt()
				.user("Hi")
				.advisors(ChatTestSupport.memory(memory, "c1"))
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResults()).isEmpty();
			assertThat(response.context()).containsEntry(MantleHooks.REASON, "everything is secret");
			assertThat(texts(memory.get("c1"))).containsExactly("USER: Hi");
			assertThat(hooks(context).calls).containsSubsequence("outgoing-text:Secret.",
					"outgoing-text:Sorry, I can't share that response.");
		});
	}

	@Test
	void crashingOutgoingHookSendsTheOriginal() {
		this.openAi.reply(Reply.text("Original."));
		this.contextRunner.run((context) -> {
			hooks(context).outgoing = (text) -> {
				throw new IllegalStateException("boom");
			};
			assertThat(chatClient(context).prompt().user("Hi").call().content()).isEqualTo("Original.");
		});
	}

	@Test
	void providerFailureReachesTheCallerAndFinishesTheTurnWithError() {
		this.openAi.reply(Reply.failure(500));
		this.contextRunner.run((context) -> {
			assertThatException().isThrownBy(() -> chatClient(context).prompt().user("Hi").call().content());
			RecordingObservers observers = observers(context);
			observers.awaitTurns(1, WAIT);
			assertThat(observers.of(TurnFinishedPayload.class).get(0).status()).isEqualTo(TurnStatus.ERROR);
		});
	}

	@Test
	void toolCallTurnRunsTheToolAndLoopsBackToTheModel() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "weather", "{\"city\":\"Paris\"}")),
				Reply.text("It is sunny in Paris."));
		this.contextRunner.run((context) -> {
			WeatherTools tools = new WeatherTools();
			String reply = chatClient(context).prompt().user("Weather in Paris?").tools(tools).call().content();
			assertThat(reply).isEqualTo("It is sunny in Paris.");
			assertThat(tools.cities).containsExactly("Paris");
			assertThat(this.openAi.requests()).hasSize(2);
			assertThat(this.openAi.messages(1)).containsExactly("user: Weather in Paris?",
					"assistant: [weather({\"city\":\"Paris\"})]", "tool: \"sunny in Paris\"");
			assertThat(hooks(context).calls).containsExactly("incoming-message", "model-request#1", "model-response",
					"model-request#2", "model-response", "outgoing-text:It is sunny in Paris.");
			ModelRequestPayload first = (ModelRequestPayload) hooks(context).payloads.get(1);
			assertThat(first.toolNames()).containsExactly("weather");
			ModelResponsePayload toolResponse = (ModelResponsePayload) hooks(context).payloads.get(2);
			assertThat(toolResponse.toolCalls()).singleElement().satisfies((call) -> {
				assertThat(call.id()).isEqualTo("call_1");
				assertThat(call.toolName()).isEqualTo("weather");
				assertThat(call.toolArgs()).isEqualTo(Map.of("city", "Paris"));
			});
		});
	}

	@Test
	void returnDirectToolAnswersWithoutAnotherModelCall() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup_order", "{\"id\":\"A1\"}")));
		this.contextRunner.run((context) -> {
			String reply = chatClient(context).prompt().user("Order A1?").tools(new OrderTools()).call().content();
			assertThat(reply).isEqualTo("\"Order A1 shipped\"");
			assertThat(this.openAi.requests()).hasSize(1);
			assertThat(hooks(context).calls).last().isEqualTo("outgoing-text:\"Order A1 shipped\"");
		});
	}

	@Test
	void responseHookCanDropToolCallsSoNoToolRuns() {
		this.openAi
			.reply(Reply.textAndToolCalls("Placing it.", new ToolCall("call_1", "weather", "{\"city\":\"Oslo\"}")));
		this.contextRunner.run((context) -> {
			hooks(context).response = (response) -> response.withToolCalls(List.of())
				.withText("I can't look that up right now.");
			WeatherTools tools = new WeatherTools();
			String reply = chatClient(context).prompt().user("Weather in Oslo?").tools(tools).call().content();
			assertThat(reply).isEqualTo("I can't look that up right now.");
			assertThat(tools.cities).isEmpty();
			assertThat(this.openAi.requests()).hasSize(1);
		});
	}

	@Test
	void handBuiltChatClientGetsTheHooksFromTheCustomizer() {
		this.openAi.reply(Reply.text("hand built"));
		this.contextRunner.run((context) -> {
			hooks(context).outgoing = (text) -> text.withText(text.text() + "!");
			ChatClient.Builder builder = ChatClient.builder(context.getBean(ChatModel.class));
			context.getBean(MantleChatClientCustomizer.class).customize(builder);
			assertThat(builder.build().prompt().user("Hi").call().content()).isEqualTo("hand built!");
			assertThat(hooks(context).calls).contains("incoming-message", "model-request#1");
		});
	}

	@Test
	void disabledHooksLeaveChatClientUntouched() {
		this.openAi.reply(Reply.text("plain"));
		this.contextRunner.withPropertyValues("mantle.hooks.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(MantleChatClientCustomizer.class);
			assertThat(chatClient(context).prompt().user("Hi").call().content()).isEqualTo("plain");
			assertThat(hooks(context).calls).isEmpty();
		});
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	static ScriptedHooks hooks(AssertableApplicationContext context) {
		return context.getBean(ScriptedHooks.class);
	}

	static RecordingObservers observers(AssertableApplicationContext context) {
		return context.getBean(RecordingObservers.class);
	}

	static List<String> texts(List<Message> messages) {
		return messages.stream().map((message) -> message.getMessageType() + ": " + message.getText()).toList();
	}

	static class WeatherTools {

		final List<String> cities = new CopyOnWriteArrayList<>();

		@Tool(name = "weather", description = "Current weather for a city")
		String weather(String city) {
			this.cities.add(city);
			return "sunny in " + city;
		}

	}

	static class OrderTools {

		@Tool(name = "lookup_order", description = "Order status", returnDirect = true)
		String lookupOrder(String id) {
			return "Order " + id + " shipped";
		}

	}

}
