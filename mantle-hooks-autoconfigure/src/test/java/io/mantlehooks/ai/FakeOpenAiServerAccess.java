package io.mantlehooks.ai;

import io.mantlehooks.ai.FakeOpenAiServer.Reply;
import io.mantlehooks.ai.FakeOpenAiServer.ToolCall;

import org.springframework.ai.util.json.JsonParser;

/**
 * Gives tests in other packages the fake OpenAI server.
 */
public final class FakeOpenAiServerAccess implements AutoCloseable {

	private final FakeOpenAiServer server = new FakeOpenAiServer();

	public String baseUrl() {
		return this.server.baseUrl();
	}

	public void text(String text) {
		this.server.reply(Reply.text(text));
	}

	public void toolCall(String id, String name, String arguments) {
		this.server.reply(Reply.toolCalls(new ToolCall(id, name, arguments)));
	}

	public String requestBody(int index) {
		return JsonParser.toJson(this.server.requests().get(index));
	}

	public void clear() {
		this.server.clear();
	}

	@Override
	public void close() {
		this.server.close();
	}

}
