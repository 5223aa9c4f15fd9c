package io.mantlehooks.sample;

import java.util.function.Consumer;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.vectorstore.QuestionAnswerAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.stereotype.Service;

/**
 * The shop's assistant: one {@link ChatClient} from Boot's builder (so the starter's
 * hooks are on it) with chat memory, retrieval and the shop's tools. It is agent
 * {@code shop}: its turns run the hooks scoped to it with {@code @ForAgent("shop")} and
 * the hooks of every agent. Each method is one turn.
 */
@Service
public class ShopAssistant {

	private static final String SYSTEM = """
			You are the assistant of Mantle Shop. Answer briefly. Use orderStatus to look up orders, \
			refund to refund them and writeGiftNote for gift notes; answer questions about the shop from \
			the context you are given.""";

	private final ChatClient chatClient;

	ShopAssistant(ChatClient.Builder builder, ChatMemory chatMemory, QuestionAnswerAdvisor questionAnswerAdvisor,
			ShopTools tools) {
		this.chatClient = builder.defaultSystem(SYSTEM)
			.defaultAdvisors(MessageChatMemoryAdvisor.builder(chatMemory).build(), questionAnswerAdvisor)
			.defaultAdvisors(MantleHooks.agent("shop"))
			.defaultTools(tools)
			.build();
	}

	/**
	 * Answer one message.
	 * @param conversation who is talking, and where
	 * @param message the user's text
	 * @return the response, its context holding {@code mantle.outcome} and friends
	 */
	public ChatClientResponse answer(Conversation conversation, String message) {
		return this.chatClient.prompt().user(message).advisors(conversation.advisors()).call().chatClientResponse();
	}

	/**
	 * Answer one message as a stream of chunks.
	 * @param conversation who is talking, and where
	 * @param message the user's text
	 * @return the chunks; the last one's context holds {@code mantle.outcome}
	 */
	public Flux<ChatClientResponse> stream(Conversation conversation, String message) {
		return this.chatClient.prompt().user(message).advisors(conversation.advisors()).stream().chatClientResponse();
	}

	/**
	 * Resume a turn paused for approval, with the user's words.
	 * @param conversation the conversation the approval belongs to
	 * @param approvalId the paused batch
	 * @param approved whether the user approved
	 * @param message what the user said
	 * @param reason why the user declined, when not approved
	 * @return the response
	 */
	public ChatClientResponse decide(Conversation conversation, String approvalId, boolean approved, String message,
			String reason) {
		Consumer<ChatClient.AdvisorSpec> decision = approved ? MantleHooks.approve(approvalId)
				: MantleHooks.deny(approvalId, reason);
		return this.chatClient.prompt()
			.user(message)
			.advisors(conversation.advisors())
			.advisors(decision)
			.call()
			.chatClientResponse();
	}

	/**
	 * Who is talking and where: the conversation id keys chat memory, the transcript and
	 * approvals; the user id and channel are the hooks' identity.
	 *
	 * @param id the conversation id
	 * @param userId the user's id
	 * @param channel the channel name ({@code web} for the chat page, {@code rest} for
	 * the API)
	 */
	public record Conversation(String id, String userId, String channel) {

		Consumer<ChatClient.AdvisorSpec> advisors() {
			Consumer<ChatClient.AdvisorSpec> identity = MantleHooks.identity(this.userId, Channel.of(this.channel));
			return (spec) -> identity.accept(spec.param(ChatMemory.CONVERSATION_ID, this.id));
		}

	}

}
