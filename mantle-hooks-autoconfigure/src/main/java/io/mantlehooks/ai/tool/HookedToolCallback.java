package io.mantlehooks.ai.tool;

import java.util.LinkedHashMap;
import java.util.Map;

import io.mantlehooks.ai.turn.TurnCancelledException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * Wraps a tool callback for one dispatched batch. Each invocation is matched to its call
 * of the batch (Spring AI runs a batch's calls in order), so the wrapper can hand that
 * call's MCP metadata to an MCP tool through the tool context, and run the tool-result
 * hooks on what the tool returned, with {@code isError} when it failed, before the next
 * call runs. Local tools never see metadata.
 */
final class HookedToolCallback implements ToolCallback {

	private static final Log logger = LogFactory.getLog(HookedToolCallback.class);

	/** The tool-context key that carries hook metadata for one MCP call. */
	static final String MCP_META_KEY = "mantle.mcp_meta";

	private static final String MCP_PACKAGE = "org.springframework.ai.mcp.";

	private final ToolCallback delegate;

	private final DispatchedBatch batch;

	HookedToolCallback(ToolCallback delegate, DispatchedBatch batch) {
		this.delegate = delegate;
		this.batch = batch;
	}

	@Override
	public ToolDefinition getToolDefinition() {
		return this.delegate.getToolDefinition();
	}

	@Override
	public ToolMetadata getToolMetadata() {
		return this.delegate.getToolMetadata();
	}

	@Override
	public String call(String toolInput) {
		return call(toolInput, null);
	}

	@Override
	public String call(String toolInput, @Nullable ToolContext toolContext) {
		String name = getToolDefinition().name();
		if (Thread.currentThread().isInterrupted()) {
			// the turn's .call() thread was interrupted: no further tool of the
			// batch runs
			throw new TurnCancelledException();
		}
		int index = this.batch.next(name);
		Map<String, Object> metadata = this.batch.metadata(index);
		ToolContext context = toolContext;
		if (!metadata.isEmpty()) {
			if (isMcp(this.delegate)) {
				Map<String, Object> entries = new LinkedHashMap<>(
						(toolContext != null) ? toolContext.getContext() : Map.of());
				entries.put(MCP_META_KEY, metadata);
				context = new ToolContext(entries);
				if (logger.isDebugEnabled()) {
					logger.debug("Sending MCP _meta keys " + metadata.keySet() + " with tool '" + name + "'");
				}
			}
			else if (logger.isDebugEnabled()) {
				logger
					.debug("Dropping tool-call metadata keys " + metadata.keySet() + " for local tool '" + name + "'");
			}
		}
		String value;
		boolean failed = false;
		try {
			value = this.delegate.call(toolInput, context);
		}
		catch (ToolExecutionException ex) {
			// Spring AI's exception processor makes the result the model sees; its
			// result hooks run once the batch is back
			this.batch.threw(index);
			throw ex;
		}
		catch (RuntimeException ex) {
			// the tool threw past Spring AI's exception processor: the model gets a
			// neutral error result, never the exception text, and the batch goes on
			logger.warn("Tool '" + name + "' failed", ex);
			value = "Tool '" + name + "' failed.";
			failed = true;
		}
		return this.batch.completed(index, (value != null) ? value : "", failed);
	}

	private static boolean isMcp(ToolCallback callback) {
		return callback.getClass().getName().startsWith(MCP_PACKAGE);
	}

}
