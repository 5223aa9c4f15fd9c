package io.mantlehooks.ai.approval;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ai.turn.ToolArguments;
import io.mantlehooks.approval.ApprovalCall;
import io.mantlehooks.runtime.HookResponses;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The approval question ({@code utter_tool_approval_required}): {@code {calls}} becomes
 * every call that runs if the batch is approved, one per line in batch order,
 * {@code {tool}} and {@code {arguments}} the first call that needs approval. A batch of
 * several calls is never asked about with a text that names only one: without
 * {@code {calls}}, the packaged text asks instead (and a WARN says so, once per tool
 * loop).
 */
public final class ApprovalQuestion {

	private static final Log logger = LogFactory.getLog(ApprovalQuestion.class);

	private static final Pattern PLACEHOLDER = Pattern.compile("\\{(calls|tool|arguments)}");

	private static final String CALLS = "{calls}";

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * Return the question.
	 * @param text the resolved reply text
	 * @param call the first call that needs approval
	 * @param calls every call of the batch, as stored
	 * @return the question
	 */
	public String of(String text, ToolCallPayload call, List<ApprovalCall> calls) {
		String template = text;
		if (calls.size() > 1 && !template.contains(CALLS)) {
			if (this.warned.compareAndSet(false, true)) {
				logger.warn("The text of " + HookResponses.TOOL_APPROVAL_REQUIRED + " has no {calls} placeholder, so "
						+ "it cannot name every call of a batch; batches of several calls are asked about with the "
						+ "packaged text. Add {calls} to the text");
			}
			template = HookResponses.packaged(HookResponses.TOOL_APPROVAL_REQUIRED);
		}
		Map<String, String> values = Map.of("calls",
				calls.stream().map(ApprovalCall::text).collect(Collectors.joining("\n")), "tool", call.toolName(),
				"arguments", ToolArguments.toJson(call.arguments()));
		// one pass: a value that happens to contain "{calls}" is not expanded again
		Matcher matcher = PLACEHOLDER.matcher(template);
		StringBuilder question = new StringBuilder();
		while (matcher.find()) {
			matcher.appendReplacement(question, Matcher.quoteReplacement(values.get(matcher.group(1))));
		}
		matcher.appendTail(question);
		return question.toString();
	}

}
