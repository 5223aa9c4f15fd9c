package io.mantlehooks.sample;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;

import org.springframework.stereotype.Component;

/**
 * Preflight for tool calls and redaction of their results: order ids are normalized
 * ({@code 42}, {@code a42} → {@code A-42}), a refund above 1000 EUR is refused (the other
 * calls of its batch still run), and email addresses in tool results never reach the
 * model.
 */
@Component
public class ToolGuards {

	static final double REFUND_LIMIT = 1000;

	private static final Pattern ORDER_ID = Pattern.compile("(?i)^\\s*(?:([a-z])-?)?(\\d+)\\s*$");

	/**
	 * Rewrite the order id to the shop's form, and refuse a refund above the limit: that
	 * call does not run (nor asks for approval), the model reads why in its place, and
	 * the other calls of the batch run ("refund 30 EUR for order 42 and 5000 EUR for
	 * order 43" refunds order 42 and tells the user about order 43).
	 * @param call the tool call the model asked for
	 * @return the call, its order id in the shop's form, refused above the limit
	 */
	@ModifyToolCall
	public ToolCallPayload preflight(ToolCallPayload call) {
		ToolCallPayload normalized = normalizeOrderId(call);
		if (call.toolName().equals("refund") && call.arguments().get("amount") instanceof Number amount
				&& amount.doubleValue() > REFUND_LIMIT) {
			return normalized.withRefusal("Not refunded: refunds above 1000 EUR need a manager, who will call you "
					+ "back about order " + normalized.arguments().getOrDefault("orderId", "?") + ".");
		}
		return normalized;
	}

	private static ToolCallPayload normalizeOrderId(ToolCallPayload call) {
		if (call.arguments().get("orderId") instanceof String orderId) {
			Matcher matcher = ORDER_ID.matcher(orderId);
			if (matcher.matches()) {
				String prefix = (matcher.group(1) != null) ? matcher.group(1).toUpperCase() : "A";
				Map<String, Object> arguments = new LinkedHashMap<>(call.arguments());
				arguments.put("orderId", prefix + "-" + matcher.group(2));
				return call.withArguments(arguments);
			}
		}
		return call;
	}

	/**
	 * Redact email addresses from what tools return.
	 * @param result what the tool returned
	 * @return the result without email addresses
	 */
	@ModifyToolResult
	public ToolResultPayload redactEmails(ToolResultPayload result) {
		return result.withValue(GuardHooks.EMAIL.matcher(result.value()).replaceAll("[email]"));
	}

}
