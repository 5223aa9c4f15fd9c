package io.mantlehooks.ai.tool;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.util.Assert;

/**
 * Builds an MCP call's {@code _meta}: what the wrapped converter makes of the tool
 * context (the server's configured meta), with the tool-call hook's metadata for that one
 * call merged over it; on a key collision the hook wins. If your application defines its
 * own {@link ToolContextToMcpMetaConverter}, wrap it in this class so hook metadata still
 * arrives and never leaks as a nested entry.
 */
public final class MantleMcpMetaConverter implements ToolContextToMcpMetaConverter {

	private final ToolContextToMcpMetaConverter delegate;

	/**
	 * Create a converter over Spring AI's default one.
	 */
	public MantleMcpMetaConverter() {
		this(ToolContextToMcpMetaConverter.defaultConverter());
	}

	/**
	 * Create a converter over the given one.
	 * @param delegate what turns the rest of the tool context into meta
	 */
	public MantleMcpMetaConverter(ToolContextToMcpMetaConverter delegate) {
		Assert.notNull(delegate, "'delegate' must not be null");
		this.delegate = delegate;
	}

	@Override
	public Map<String, Object> convert(ToolContext toolContext) {
		Object hookMetadata = toolContext.getContext().get(HookedToolCallback.MCP_META_KEY);
		if (!(hookMetadata instanceof Map<?, ?> overlay)) {
			return this.delegate.convert(toolContext);
		}
		Map<String, Object> rest = new LinkedHashMap<>(toolContext.getContext());
		rest.remove(HookedToolCallback.MCP_META_KEY);
		Map<String, Object> meta = new LinkedHashMap<>(this.delegate.convert(new ToolContext(rest)));
		overlay.forEach((key, value) -> meta.put(String.valueOf(key), value));
		return meta;
	}

}
