package io.mantlehooks.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.util.Assert;

/**
 * A local server that speaks the OpenAI chat-completions protocol on loopback, for tests
 * that use the real Spring AI OpenAI client over HTTP: it answers with scripted replies
 * (JSON, or server-sent events when the request asks to stream) and records every request
 * body, so tests can assert what the provider received.
 *
 * <pre class="code">
 * try (LoopbackOpenAiServer openAi = new LoopbackOpenAiServer()) {
 *     openAi.toolCall("call_1", "get_weather", "{\"city\":\"Paris\"}").text("Sunny.");
 *     new SpringApplicationBuilder(App.class).properties(openAi.springProperties()).run();
 *     // ... run a turn, then:
 *     assertThat(openAi.messages(1)).contains("tool: {\"sky\":\"clear\"}");
 * }
 * </pre>
 *
 * A request with no scripted reply left gets HTTP 500. Needs the {@code jdk.httpserver}
 * module (part of every JDK).
 */
public final class LoopbackOpenAiServer implements AutoCloseable {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpServer server;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();

	private final List<Map<String, Object>> requests = new CopyOnWriteArrayList<>();

	/**
	 * Start a server on a free loopback port.
	 */
	public LoopbackOpenAiServer() {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.server.setExecutor(this.executor);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	/**
	 * Return the base URL for {@code spring.ai.openai.base-url}.
	 * @return {@code http://127.0.0.1:<port>/v1}
	 */
	public String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1";
	}

	/**
	 * Return the Spring properties that point the OpenAI starter here: base URL, a test
	 * key, model {@code fake-model} and no retries.
	 * @return property names and values, in a stable order
	 * @see #registerProperties(DynamicPropertyRegistry)
	 */
	public Map<String, String> properties() {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("spring.ai.openai.base-url", baseUrl());
		properties.put("spring.ai.openai.api-key", "test-key");
		properties.put("spring.ai.openai.chat.model", "fake-model");
		properties.put("spring.ai.openai.max-retries", "0");
		return Collections.unmodifiableMap(properties);
	}

	/**
	 * Return the {@link #properties()} as {@code key=value} pairs.
	 * @return pairs for {@code SpringApplicationBuilder.properties} or
	 * {@code @SpringBootTest(properties)}
	 */
	public String[] springProperties() {
		return properties().entrySet()
			.stream()
			.map((property) -> property.getKey() + "=" + property.getValue())
			.toArray(String[]::new);
	}

	/**
	 * Add the {@link #properties()} to a Spring test's dynamic properties, so a
	 * {@code @SpringBootTest} talks to this server:
	 *
	 * <pre class="code">
	 * static final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();
	 *
	 * &#64;DynamicPropertySource
	 * static void openAi(DynamicPropertyRegistry registry) {
	 *     openAi.registerProperties(registry);
	 * }
	 * </pre>
	 *
	 * Needs {@code spring-test} (in {@code spring-boot-starter-test}).
	 * @param registry the registry handed to a {@code @DynamicPropertySource} method
	 */
	public void registerProperties(DynamicPropertyRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		properties().forEach((name, value) -> registry.add(name, () -> value));
	}

	/**
	 * Script replies, answered in order.
	 * @param replies the replies
	 * @return this server
	 */
	public LoopbackOpenAiServer reply(Reply... replies) {
		this.replies.addAll(List.of(replies));
		return this;
	}

	/**
	 * Script a text reply.
	 * @param text the assistant's text
	 * @return this server
	 */
	public LoopbackOpenAiServer text(String text) {
		return reply(Reply.text(text));
	}

	/**
	 * Script a reply with one tool call.
	 * @param id the call id
	 * @param name the tool name
	 * @param arguments the arguments as a JSON object text
	 * @return this server
	 */
	public LoopbackOpenAiServer toolCall(String id, String name, String arguments) {
		return reply(Reply.toolCalls(new ToolCall(id, name, arguments)));
	}

	/**
	 * Forget the scripted replies left and the requests received.
	 */
	public void clear() {
		this.replies.clear();
		this.requests.clear();
	}

	/**
	 * Return the parsed bodies of the requests received so far.
	 * @return the request bodies, in order
	 */
	public List<Map<String, Object>> requests() {
		return List.copyOf(this.requests);
	}

	/**
	 * Return one request body as JSON text.
	 * @param index the request's index, 0 for the first
	 * @return the body
	 */
	public String requestBody(int index) {
		return JSON.writeValueAsString(this.requests.get(index));
	}

	/**
	 * Return the messages of one request as {@code role: content} lines; tool-call
	 * messages show their calls, tool messages their result.
	 * @param request the request's index
	 * @return one line per message
	 */
	@SuppressWarnings("unchecked")
	public List<String> messages(int request) {
		List<String> lines = new ArrayList<>();
		for (Map<String, Object> message : (List<Map<String, Object>>) this.requests.get(request).get("messages")) {
			Object content = message.get("content");
			String line = message.get("role") + ": " + ((content != null) ? content : "");
			if (message.get("tool_calls") instanceof List<?> calls) {
				line += calls.stream()
					.map((call) -> (Map<String, Object>) ((Map<String, Object>) call).get("function"))
					.map((function) -> function.get("name") + "(" + function.get("arguments") + ")")
					.toList();
			}
			lines.add(line.trim());
		}
		return lines;
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange; InputStream in = exchange.getRequestBody()) {
			String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			@SuppressWarnings("unchecked")
			Map<String, Object> request = JSON.readValue(body, Map.class);
			this.requests.add(request);
			Reply reply = this.replies.poll();
			if (reply == null) {
				send(exchange, 500, "{\"error\":{\"message\":\"no scripted reply\",\"type\":\"server_error\"}}");
			}
			else if (reply.status() != 200) {
				send(exchange, reply.status(),
						"{\"error\":{\"message\":\"scripted failure\",\"type\":\"server_error\"}}");
			}
			else if (Boolean.TRUE.equals(request.get("stream"))) {
				stream(exchange, reply);
			}
			else {
				send(exchange, 200, JSON.writeValueAsString(reply.completion()));
			}
		}
	}

	private static void send(HttpExchange exchange, int status, String json) throws IOException {
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	private static void stream(HttpExchange exchange, Reply reply) throws IOException {
		exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
		exchange.sendResponseHeaders(200, 0);
		try (OutputStream out = exchange.getResponseBody()) {
			for (Map<String, Object> chunk : reply.chunks()) {
				out.write(("data: " + JSON.writeValueAsString(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8));
				out.flush();
			}
			out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/**
	 * One scripted model reply: text, tool calls, or a failure status.
	 *
	 * @param status the HTTP status
	 * @param text the assistant text, may be {@code null}
	 * @param toolCalls the tool calls, {@code id}, {@code name} and JSON
	 * {@code arguments}
	 */
	public record Reply(int status, @Nullable String text, List<ToolCall> toolCalls) {

		/**
		 * A text reply.
		 * @param text the assistant's text
		 * @return the reply
		 */
		public static Reply text(String text) {
			return new Reply(200, text, List.of());
		}

		/**
		 * A reply with tool calls and no text.
		 * @param calls the calls
		 * @return the reply
		 */
		public static Reply toolCalls(ToolCall... calls) {
			return new Reply(200, null, List.of(calls));
		}

		/**
		 * A reply with text and tool calls.
		 * @param text the text
		 * @param calls the calls
		 * @return the reply
		 */
		public static Reply textAndToolCalls(String text, ToolCall... calls) {
			return new Reply(200, text, List.of(calls));
		}

		/**
		 * An HTTP error instead of a reply.
		 * @param status the status, e.g. 500 or 429
		 * @return the reply
		 */
		public static Reply failure(int status) {
			return new Reply(status, null, List.of());
		}

		Map<String, Object> completion() {
			Map<String, Object> message = new LinkedHashMap<>();
			message.put("role", "assistant");
			message.put("content", this.text);
			if (!this.toolCalls.isEmpty()) {
				message.put("tool_calls", this.toolCalls.stream().map(ToolCall::json).toList());
			}
			return Map.of("id", "chatcmpl-1", "object", "chat.completion", "created", 1, "model", "fake-model",
					"choices",
					List.of(Map.of("index", 0, "finish_reason", this.toolCalls.isEmpty() ? "stop" : "tool_calls",
							"message", message)),
					"usage", Map.of("prompt_tokens", 10, "completion_tokens", 5, "total_tokens", 15));
		}

		/**
		 * The reply as stream chunks: the text word by word, then each tool call, then
		 * the finish chunk and a usage chunk.
		 * @return the chunks, in order
		 */
		List<Map<String, Object>> chunks() {
			List<Map<String, Object>> chunks = new ArrayList<>();
			if (this.text != null) {
				for (String word : this.text.split("(?<= )")) {
					chunks.add(chunk(Map.of("content", word), null));
				}
			}
			for (int i = 0; i < this.toolCalls.size(); i++) {
				ToolCall call = this.toolCalls.get(i);
				chunks.add(chunk(Map.of("tool_calls", List.of(Map.of("index", i, "id", call.id(), "type", "function",
						"function", Map.of("name", call.name(), "arguments", call.arguments())))), null));
			}
			chunks.add(chunk(Map.of(), this.toolCalls.isEmpty() ? "stop" : "tool_calls"));
			Map<String, Object> usage = new LinkedHashMap<>(chunk(Map.of(), null));
			usage.put("choices", List.of());
			usage.put("usage", Map.of("prompt_tokens", 10, "completion_tokens", 5, "total_tokens", 15));
			chunks.add(usage);
			return chunks;
		}

		private static Map<String, Object> chunk(Map<String, Object> delta, String finishReason) {
			Map<String, Object> choice = new LinkedHashMap<>();
			choice.put("index", 0);
			choice.put("delta", delta);
			choice.put("finish_reason", finishReason);
			return Map.of("id", "chatcmpl-2", "object", "chat.completion.chunk", "created", 1, "model", "fake-model",
					"choices", List.of(choice));
		}

	}

	/**
	 * A scripted tool call.
	 *
	 * @param id the call id
	 * @param name the tool name
	 * @param arguments the arguments as a JSON object text
	 */
	public record ToolCall(String id, String name, String arguments) {

		Map<String, Object> json() {
			return Map.of("id", this.id, "type", "function", "function",
					Map.of("name", this.name, "arguments", this.arguments));
		}

	}

}
