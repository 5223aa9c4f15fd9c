package io.mantlehooks.ai.mcp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.ai.mcp.annotation.McpMeta;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A real MCP server (streamable HTTP on loopback) with one tool that remembers the
 * {@code _meta} and arguments it received.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class DocumentServer {

	@Bean
	DocumentTool documentTool() {
		return new DocumentTool();
	}

	/**
	 * The MCP tool. It answers with a neutral text, so anything the model sees of the
	 * meta would have to come from somewhere else.
	 */
	public static class DocumentTool {

		final List<Map<String, Object>> metas = new CopyOnWriteArrayList<>();

		final List<String> documentIds = new CopyOnWriteArrayList<>();

		@McpTool(name = "get_document", description = "Fetch an uploaded document")
		public String getDocument(@McpToolParam(description = "document id", required = true) String documentId,
				McpMeta meta) {
			this.documentIds.add(documentId);
			this.metas.add((meta.meta() != null) ? Map.copyOf(meta.meta()) : Map.of());
			return "document " + documentId + " fetched";
		}

	}

}
