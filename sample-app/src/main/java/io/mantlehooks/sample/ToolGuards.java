package io.mantlehooks.sample;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;

import org.springframework.stereotype.Component;

/**
 * Preflight for tool calls and redaction of their results: order ids are normalized
 * ({@code 42}, {@code a42} → {@code A-42}), refunds above 1000 EUR never run, and email
 * addresses in tool results never reach the model.
 */
@Component
public class ToolGuards {

	static final double REFUND_LIMIT = 1000;

	private static final Pattern ORDER_ID = Pattern.compile("(?i)^\\s*(?:([a-z])-?)?(\\d+)\\s*$");

	/**
	 * Rewrite the order id to the shop's form, and block a refund above the limit: no
	 * tool of the batch runs and the model is told why.
	 * @param call the tool call the model asked for
	 * @return the call, its order id in the shop's form
	 */
	@ModifyToolCall
	public ToolCallPayload preflight(ToolCallPayload call) {
		if (call.toolName().equals("refund") && call.arguments().get("amount") instanceof Number amount
				&& amount.doubleValue() > REFUND_LIMIT) {
			throw new RetryModel("Refunds above 1000 EUR need a manager: do not call refund again; "
					+ "tell the user a manager will call back.");
		}
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
