package io.mantlehooks.sample;

import io.mantlehooks.approval.ApprovalResumer;
import io.mantlehooks.sample.ShopAssistant.Conversation;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lets the turn console approve or deny a paused refund: it resumes the conversation
 * through the shop's own assistant (its memory, documents and tools), with words that say
 * where the decision came from.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleApprovals {

	@Bean
	ApprovalResumer approvalResumer(ShopAssistant assistant) {
		return (approval, approved, reason) -> {
			Conversation conversation = new Conversation(approval.conversationId(), approval.senderId(),
					approval.channel());
			String words = approved ? "Approved in the turn console." : "Declined in the turn console.";
			return assistant.decide(conversation, approval.id(), approved, words, reason);
		};
	}

}
