package io.mantlehooks.sample;

import io.mantlehooks.MantleHooks;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.stereotype.Service;

/**
 * The shop's copywriter, a sub-agent: its own {@link ChatClient} from Boot's builder,
 * named agent {@code copywriter}, with a system prompt of its own and no tools, memory or
 * documents. {@link ShopTools#writeGiftNote} calls it during a shop turn, so its call
 * belongs to that turn (same turn id and identity) and runs the copywriter's model hooks
 * ({@link CopywriterHooks}), not the shop's.
 */
@Service
public class Copywriter {

	/** Who the model is; the demo model tells the copywriter's requests by it. */
	static final String ROLE = "You are the copywriter of Mantle Shop.";

	private static final String SYSTEM = ROLE + " Write short, warm gift notes in plain sentences.";

	private final ChatClient chatClient;

	Copywriter(ChatClient.Builder builder) {
		this.chatClient = builder.defaultSystem(SYSTEM).defaultAdvisors(MantleHooks.agent("copywriter")).build();
	}

	/**
	 * Write the gift note for an order.
	 * @param orderId the order, in the shop's form ({@code A-7})
	 * @param recipient whom the gift is for
	 * @param giftCardCode the code of the gift card in the order, to put into the note;
	 * {@code null} when the order has none
	 * @return the note
	 */
	public String giftNote(String orderId, String recipient, @Nullable String giftCardCode) {
		String request = "Write a gift note to " + recipient + " for order " + orderId + ".";
		if (giftCardCode != null) {
			request += " The order holds a gift card: put its code in the note, " + giftCardCode + ".";
		}
		String note = this.chatClient.prompt().user(request).call().content();
		return (note != null) ? note : "";
	}

}
