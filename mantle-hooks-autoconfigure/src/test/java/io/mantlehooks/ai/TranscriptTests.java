package io.mantlehooks.ai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.mantlehooks.Channel;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The transcript as an auditor reads it: each accepted message as the hooks left it and
 * the reply the user got; a rejected message as sent, with its rejection reply, both
 * marked discarded and left out of later model history; nothing of a draft an
 * outgoing-text hook rejected.
 */
@ExtendWith(OutputCaptureExtension.class)
class TranscriptTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withPropertyValues("mantle.hooks.transcript.enabled=true",
				"mantle.hooks.responses.utter_no_spam=No spam here.")
		.withBean("transcriptHooks", TranscriptHooks.class);

	private final ChatMemory memory = MessageWindowChatMemory.builder().build();

	@AfterEach
	void stop() {
		this.openAi.close();
	}

	@Test
	void acceptedAndRejectedMessagesAreRecordedInOrderAndRejectedOnesLeaveModelHistory() {
		this.openAi.reply(Reply.text("Your card is fine."), Reply.text("Happy to help."));
		this.contextRunner.run((context) -> {
			turn(context, "Is card 4111 blocked?");
			ChatClientResponse rejected = turn(context, "send me spam");
			assertThat(rejected.context()).containsEntry(MantleHooks.OUTCOME, "rejected");
			turn(context, "Thanks");
			List<TranscriptEntry> entries = context.getBean(TranscriptStore.class).find("c-1");
			assertThat(entries)
				.extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::discarded,
						TranscriptEntry::outcome)
				.containsExactly(tuple(TranscriptRole.USER, "Is card [card] blocked?", false, null),
						tuple(TranscriptRole.ASSISTANT, "Your card is fine.", false, null),
						tuple(TranscriptRole.USER, "send me spam", true, "rejected"),
						tuple(TranscriptRole.ASSISTANT, "No spam here.", true, "rejected"),
						tuple(TranscriptRole.USER, "Thanks", false, null),
						tuple(TranscriptRole.ASSISTANT, "Happy to help.", false, null));
			assertThat(entries).allSatisfy((entry) -> {
				assertThat(entry.senderId()).isEqualTo("user-1");
				assertThat(entry.channel()).isEqualTo("web");
				assertThat(entry.turnId()).isNotEmpty();
			});
			// the last model request has the accepted exchange only
			assertThat(this.openAi.messages(1)).containsExactly("user: Is card [card] blocked?",
					"assistant: Your card is fine.", "user: Thanks");
		});
	}

	@Test
	void aDraftRejectedOnTheWayOutIsNotRecordedOnlyWhatTheUserReceived() {
		this.openAi.reply(Reply.text("The secret is 1234."));
		this.contextRunner.run((context) -> {
			assertThat(text(turn(context, "Tell me the secret"))).isEqualTo("Sorry, I can't share that response.");
			assertThat(context.getBean(TranscriptStore.class).find("c-1"))
				.extracting(TranscriptEntry::role, TranscriptEntry::text, TranscriptEntry::discarded)
				.containsExactly(tuple(TranscriptRole.USER, "Tell me the secret", false),
						tuple(TranscriptRole.ASSISTANT, "Sorry, I can't share that response.", false));
		});
	}

	@Test
	void streamedTurnsRecordTheTextTheUserReceived() {
		this.openAi.reply(Reply.text("Streamed in four words."));
		this.contextRunner.run((context) -> {
			String streamed = String.join("",
					chatClient(context).prompt()
						.user("Stream please")
						.advisors(ChatTestSupport.memory(this.memory, "c-1"))
						.advisors(MantleHooks.identity("user-1", Channel.of("web")))
						.stream()
						.content()
						.collectList()
						.block());
			assertThat(streamed).isEqualTo("Streamed in four words.");
			assertThat(context.getBean(TranscriptStore.class).find("c-1")).extracting(TranscriptEntry::text)
				.containsExactly("Stream please", "Streamed in four words.");
		});
	}

	@Test
	void withoutAConversationIdTheSenderIsTheConversation() {
		this.openAi.reply(Reply.text("Hello."));
		this.contextRunner.run((context) -> {
			chatClient(context).prompt()
				.user("Hi")
				.advisors(MantleHooks.identity("user-9", Channel.of("sms")))
				.call()
				.content();
			assertThat(context.getBean(TranscriptStore.class).find("user-9")).extracting(TranscriptEntry::text)
				.containsExactly("Hi", "Hello.");
		});
	}

	@Test
	void aFailingStoreIsLoggedWithTheTurnIdAndTheTurnGoesOn(CapturedOutput output) {
		this.openAi.reply(Reply.text("Still answered."));
		this.contextRunner.withBean(TranscriptStore.class, FailingStore::new).run((context) -> {
			ChatClientResponse response = turn(context, "Hello");
			assertThat(text(response)).isEqualTo("Still answered.");
			String turnId = (String) response.context().get(MantleHooks.TURN_ID);
			assertThat(context.getBean(FailingStore.class).turnIds).contains(turnId);
		});
		assertThat(output).contains("Could not write the user message of turn ")
			.contains("Could not write the assistant message of turn ")
			.contains("database is down")
			.contains("org/example/jdbc/Driver");
	}

	@Test
	void aUserEntryCarriesAnOutcomeOnlyWhenTheMessageWasSetAsideTheReplyAlways() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"42\"}")));
		this.contextRunner.withPropertyValues("mantle.hooks.approvals.tools=refund").run((context) -> {
			String approvalId = (String) turn(context, "Refund 42", (spec) -> {
			}).context().get(MantleHooks.APPROVAL_ID);
			turn(context, "Yes", MantleHooks.approve("no-such-batch"));
			chatClient(context).prompt()
				.user("I approve")
				.tools(new Refunds())
				.advisors(ChatTestSupport.memory(this.memory, "c-1"))
				.advisors(MantleHooks.identity("user-2", Channel.of("web")))
				.advisors(MantleHooks.approve(approvalId))
				.call()
				.chatClientResponse();
			turn(context, "send me spam", (spec) -> {
			});
			assertThat(context.getBean(TranscriptStore.class).find("c-1"))
				.extracting(TranscriptEntry::role, TranscriptEntry::discarded, TranscriptEntry::outcome)
				.containsExactly(tuple(TranscriptRole.USER, false, null),
						tuple(TranscriptRole.ASSISTANT, false, "awaiting_approval"),
						tuple(TranscriptRole.USER, false, null),
						tuple(TranscriptRole.ASSISTANT, false, "approval_not_found"),
						tuple(TranscriptRole.USER, false, null),
						tuple(TranscriptRole.ASSISTANT, false, "approval_not_allowed"),
						tuple(TranscriptRole.USER, true, "rejected"),
						tuple(TranscriptRole.ASSISTANT, true, "rejected"));
		});
	}

	@Test
	void theTranscriptIsOffByDefault() {
		ChatTestSupport.contextRunner(this.openAi)
			.run((context) -> assertThat(context).doesNotHaveBean(TranscriptStore.class));
	}

	private ChatClientResponse turn(AssertableApplicationContext context, String text,
			Consumer<ChatClient.AdvisorSpec> params) {
		return chatClient(context).prompt()
			.user(text)
			.tools(new Refunds())
			.advisors(ChatTestSupport.memory(this.memory, "c-1"))
			.advisors(MantleHooks.identity("user-1", Channel.of("web")))
			.advisors(params)
			.call()
			.chatClientResponse();
	}

	private ChatClientResponse turn(AssertableApplicationContext context, String text) {
		return chatClient(context).prompt()
			.user(text)
			.advisors(ChatTestSupport.memory(this.memory, "c-1"))
			.advisors(MantleHooks.identity("user-1", Channel.of("web")))
			.call()
			.chatClientResponse();
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	static class TranscriptHooks {

		@ModifyIncomingMessage
		IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_no_spam");
			}
			return message.withText(message.text().replace("4111", "[card]"));
		}

		@ModifyOutgoingText
		OutgoingTextPayload guard(OutgoingTextPayload outgoing) {
			if (outgoing.text().contains("secret is")) {
				throw new HookRejection("leak");
			}
			return outgoing;
		}

	}

	static class Refunds {

		@Tool(name = "refund", description = "Refund an order")
		String refund(String order) {
			return "refunded " + order;
		}

	}

	static class FailingStore implements TranscriptStore {

		final List<String> turnIds = new CopyOnWriteArrayList<>();

		@Override
		public void append(TranscriptEntry entry) {
			this.turnIds.add(entry.turnId());
			if (entry.role() == TranscriptRole.ASSISTANT) {
				// a store may fail with an Error too, e.g. a driver class missing
				throw new NoClassDefFoundError("org/example/jdbc/Driver");
			}
			throw new IllegalStateException("database is down");
		}

		@Override
		public List<TranscriptEntry> find(String conversationId) {
			return List.of();
		}

		@Override
		public void delete(String conversationId) {
		}

	}

}
