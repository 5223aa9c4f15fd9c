package io.mantlehooks.ai;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.ai.tool.annotation.Tool;

/**
 * A shop's {@code refund} tool, which counts how often it really ran: a refund that runs
 * twice, or runs after a failed turn, shows in the count.
 */
class CountingRefundTools {

	final AtomicInteger refunds = new AtomicInteger();

	@Tool(name = "refund", description = "Refund an order")
	String refund(String order) {
		this.refunds.incrementAndGet();
		return "refunded " + order;
	}

}
