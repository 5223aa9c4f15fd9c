package io.mantlehooks.sample;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.stereotype.Component;

/**
 * The shop's tools: a harmless order lookup, refunds, which wait for the user's approval
 * ({@code mantle.hooks.approvals.tools: refund}), and gift notes, which a sub-agent (the
 * {@link Copywriter}) writes during the shop's turn.
 */
@Component
public class ShopTools {

	private static final Map<String, String> ORDERS = Map.of("A-42",
			"shipped on 2026-11-28 to jane.doe@example.com, tracking 1Z999", "A-7", "being packed for ada@example.org");

	/** Gift cards in orders: their codes go into the gift note. */
	private static final Map<String, String> GIFT_CARDS = Map.of("A-7", "6035 7700 4242 4242");

	private static final int MAX_RECIPIENT = 60;

	private final List<String> refunds = new CopyOnWriteArrayList<>();

	private final Copywriter copywriter;

	ShopTools(Copywriter copywriter) {
		this.copywriter = copywriter;
	}

	@Tool(description = "Look up the status of one order by its id, e.g. A-42")
	public String orderStatus(@ToolParam(description = "the order id, e.g. A-42") String orderId) {
		String status = ORDERS.get(orderId);
		return (status != null) ? "Order " + orderId + " " + status + "." : "There is no order " + orderId + ".";
	}

	@Tool(description = "Refund an amount in EUR for one order")
	public String refund(@ToolParam(description = "the order id, e.g. A-42") String orderId,
			@ToolParam(description = "the amount in EUR") double amount) {
		String done = String.format(Locale.ROOT, "Refunded %.2f EUR for order %s", amount, orderId);
		this.refunds.add(done);
		return done + ".";
	}

	@Tool(description = "Write the gift note printed for the recipient of one order")
	public String writeGiftNote(@ToolParam(description = "the order id, e.g. A-7") String orderId,
			@ToolParam(description = "whom the gift is for, e.g. Grandma") String recipient) {
		if (!ORDERS.containsKey(orderId)) {
			return "There is no order " + orderId + ".";
		}
		String name = (recipient != null) ? recipient.strip() : "";
		if (name.isEmpty() || name.length() > MAX_RECIPIENT) {
			return "Tell me whom the gift is for: a name of at most " + MAX_RECIPIENT + " characters.";
		}
		return "Gift note for order " + orderId + ": "
				+ this.copywriter.giftNote(orderId, name, GIFT_CARDS.get(orderId));
	}

	/**
	 * Return the refunds made so far, for the demo's tests.
	 * @return one line per refund
	 */
	public List<String> refunds() {
		return List.copyOf(this.refunds);
	}

}
