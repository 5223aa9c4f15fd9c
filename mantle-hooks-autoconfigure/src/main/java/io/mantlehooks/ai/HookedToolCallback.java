package io.mantlehooks.ai;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * Wraps the tool callback of one dispatched call: notes whether the tool failed (so the
 * tool-result hooks see {@code isError}), and hands the tool-call hook's MCP metadata to
 * MCP tools through the tool context of that one call. Local tools never see it.
 */
final class HookedToolCallback implements ToolCallback {

	private static final Log logger = LogFactory.getLog(HookedToolCallback.class);

	/** The tool-context key that carries hook metadata for one MCP call. */
	static final String MCP_META_KEY = "mantle.mcp_meta";

	private static final String MCP_PACKAGE = "org.springframework.ai.mcp.";

	private final ToolCallback delegate;

	private final Map<String, Object> mcpMetadata;

	private volatile boolean failed;

	HookedToolCallback(ToolCallback delegate, Map<String, Object> mcpMetadata) {
		this.delegate = delegate;
		this.mcpMetadata = mcpMetadata;
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
		ToolContext context = toolContext;
		if (!this.mcpMetadata.isEmpty()) {
			if (isMcp(this.delegate)) {
				Map<String, Object> entries = new LinkedHashMap<>(
						(toolContext != null) ? toolContext.getContext() : Map.of());
				entries.put(MCP_META_KEY, this.mcpMetadata);
				context = new ToolContext(entries);
				if (logger.isDebugEnabled()) {
					logger.debug("Sending MCP _meta keys " + this.mcpMetadata.keySet() + " with tool '"
							+ getToolDefinition().name() + "'");
				}
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Dropping tool-call metadata keys " + this.mcpMetadata.keySet() + " for local tool '"
						+ getToolDefinition().name() + "'");
			}
		}
		try {
			return this.delegate.call(toolInput, context);
		}
		catch (RuntimeException ex) {
			this.failed = true;
			throw ex;
		}
	}

	boolean failed() {
		return this.failed;
	}

	private static boolean isMcp(ToolCallback callback) {
		return callback.getClass().getName().startsWith(MCP_PACKAGE);
	}

}
