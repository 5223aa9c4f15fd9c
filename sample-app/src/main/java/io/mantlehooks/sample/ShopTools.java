package io.mantlehooks.sample;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.stereotype.Component;

/**
 * The shop's two tools: a harmless order lookup, and refunds, which wait for the user's
 * approval ({@code mantle.hooks.approvals.tools: refund}).
 */
@Component
public class ShopTools {

	private static final Map<String, String> ORDERS = Map.of("A-42",
			"shipped on 2026-11-28 to jane.doe@example.com, tracking 1Z999", "A-7", "being packed for ada@example.org");

	private final List<String> refunds = new CopyOnWriteArrayList<>();

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

	/**
	 * Return the refunds made so far, for the demo's tests.
	 * @return one line per refund
	 */
	public List<String> refunds() {
		return List.copyOf(this.refunds);
	}

}
