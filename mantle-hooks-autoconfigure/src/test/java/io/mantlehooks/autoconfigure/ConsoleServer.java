package io.mantlehooks.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * What the console's HTTP tests share: a servlet application on a free loopback port,
 * with no provider's models or MCP, the console on and the {@code mantlehooks} endpoint
 * exposed; and a plain {@code GET} to it.
 */
final class ConsoleServer {

	private ConsoleServer() {
	}

	/**
	 * The application of a configuration, for a test to add its own properties to and
	 * run.
	 */
	static SpringApplicationBuilder application(Class<?> configuration) {
		return new SpringApplicationBuilder(configuration).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.ai.model.chat=none",
					"spring.ai.model.embedding=none", "spring.ai.model.image=none", "spring.ai.model.audio.speech=none",
					"spring.ai.model.audio.transcription=none", "spring.ai.model.moderation=none",
					"spring.ai.mcp.client.enabled=false", "spring.ai.mcp.server.enabled=false",
					"mantle.hooks.console.enabled=true",
					"management.endpoints.web.exposure.include=health,mantlehooks");
	}

	static HttpResponse<String> get(String port, String path) throws IOException, InterruptedException {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
					HttpResponse.BodyHandlers.ofString());
	}

}
