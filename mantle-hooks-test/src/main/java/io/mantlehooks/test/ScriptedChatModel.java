package io.mantlehooks.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.util.Assert;

/**
 * A {@link ChatModel} that plays scripted replies, in order, for whole-turn tests inside
 * a Spring Boot test, and records every {@link Prompt} it got. Define it as a bean and
 * the starter hooks it like any model:
 *
 * <pre class="code">
 * ScriptedChatModel model = new ScriptedChatModel()
 *     .toolCall("get_weather", "{\"city\":\"Paris\"}")   // first model call asks for a tool
 *     .text("Sunny in Paris.");                           // second call answers
 * // ... run a turn ...
 * assertThat(model.userTexts(0)).containsExactly("Weather in Paris?");
 * </pre>
 *
 * In {@code .stream()} a text reply arrives word by word, the tool calls with the last
 * chunk. When the script is used up the model fails the call, unless a
 * {@linkplain #otherwise fallback} answers.
 */
public class ScriptedChatModel implements ChatModel {

	private final Queue<Reply> replies = new ConcurrentLinkedQueue<>();

	private final List<Prompt> prompts = new CopyOnWriteArrayList<>();

	private final AtomicInteger callIds = new AtomicInteger();

	private @Nullable Function<Prompt, String> fallback;

	/**
	 * Add a text reply.
	 * @param text the assistant's text
	 * @return this model
	 */
	public ScriptedChatModel text(String text) {
		Assert.notNull(text, "'text' must not be null");
		this.replies.add(new Reply(text, List.of()));
		return this;
	}

	/**
	 * Add a reply that asks for one tool call, with a generated id.
	 * @param toolName the tool
	 * @param argumentsJson its arguments as a JSON object text
	 * @return this model
	 */
	public ScriptedChatModel toolCall(String toolName, String argumentsJson) {
		return toolCalls(null, Map.of(toolName, argumentsJson));
	}

	/**
	 * Add a reply that asks for several tool calls in one batch, in map order, with
	 * optional accompanying text.
	 * @param text the text with the calls, or {@code null}
	 * @param callsByTool tool name to arguments JSON (use a {@code LinkedHashMap} for
	 * order)
	 * @return this model
	 */
	public ScriptedChatModel toolCalls(@Nullable String text, Map<String, String> callsByTool) {
		Assert.notEmpty(callsByTool, "'callsByTool' must not be empty");
		List<AssistantMessage.ToolCall> calls = new ArrayList<>();
		callsByTool.forEach((name, arguments) -> calls
			.add(new AssistantMessage.ToolCall("call_" + this.callIds.incrementAndGet(), "function", name, arguments)));
		this.replies.add(new Reply(text, calls));
		return this;
	}

	/**
	 * Answer with this function once the script is used up, instead of failing.
	 * @param answer makes a text reply from the prompt
	 * @return this model
	 */
	public ScriptedChatModel otherwise(Function<Prompt, String> answer) {
		this.fallback = answer;
		return this;
	}

	/**
	 * Return every prompt received, in order.
	 * @return the prompts
	 */
	public List<Prompt> prompts() {
		return List.copyOf(this.prompts);
	}

	/**
	 * Return the texts of the user messages of one prompt.
	 * @param prompt the prompt's index, 0 for the first model call
	 * @return the user texts, in order
	 */
	public List<String> userTexts(int prompt) {
		return texts(prompt, MessageType.USER);
	}

	/**
	 * Return the texts of one prompt's messages of one type.
	 * @param prompt the prompt's index
	 * @param type the message type
	 * @return the texts, in order
	 */
	public List<String> texts(int prompt, MessageType type) {
		return this.prompts.get(prompt)
			.getInstructions()
			.stream()
			.filter((message) -> message.getMessageType() == type)
			.map(Message::getText)
			.map((text) -> (text != null) ? text : "")
			.toList();
	}

	/**
	 * Return how many scripted replies are left.
	 * @return the number of unused replies
	 */
	public int remaining() {
		return this.replies.size();
	}

	/**
	 * Forget the prompts and the replies left.
	 */
	public void reset() {
		this.replies.clear();
		this.prompts.clear();
	}

	/**
	 * Return tool-calling options, so a {@code ChatClient} can offer tools to this model.
	 * @return empty tool-calling options
	 */
	@Override
	public ChatOptions getDefaultOptions() {
		return ToolCallingChatOptions.builder().build();
	}

	@Override
	public ChatOptions getOptions() {
		return getDefaultOptions();
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		Reply reply = next(prompt);
		return response(reply.text(), reply.toolCalls(), reply.toolCalls().isEmpty() ? "STOP" : "TOOL_CALLS");
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> {
			Reply reply = next(prompt);
			String[] words = (reply.text() != null) ? reply.text().split("(?<= )") : new String[] { "" };
			List<ChatResponse> chunks = new ArrayList<>();
			for (int i = 0; i < words.length - 1; i++) {
				chunks.add(response(words[i], List.of(), null));
			}
			// the last chunk ends the reply: the last word, the tool calls, the
			// finish reason
			chunks.add(response(words[words.length - 1], reply.toolCalls(),
					reply.toolCalls().isEmpty() ? "STOP" : "TOOL_CALLS"));
			return Flux.fromIterable(chunks);
		});
	}

	private Reply next(Prompt prompt) {
		this.prompts.add(prompt);
		Reply reply = this.replies.poll();
		if (reply != null) {
			return reply;
		}
		if (this.fallback != null) {
			return new Reply(this.fallback.apply(prompt), List.of());
		}
		throw new IllegalStateException(
				"ScriptedChatModel has no reply left for model call " + this.prompts.size() + "; script more replies");
	}

	private static ChatResponse response(@Nullable String text, List<AssistantMessage.ToolCall> calls,
			@Nullable String finishReason) {
		AssistantMessage message = AssistantMessage.builder().content(text).toolCalls(calls).build();
		ChatGenerationMetadata metadata = (finishReason != null)
				? ChatGenerationMetadata.builder().finishReason(finishReason).build() : ChatGenerationMetadata.NULL;
		return new ChatResponse(List.of(new Generation(message, metadata)));
	}

	private record Reply(@Nullable String text, List<AssistantMessage.ToolCall> toolCalls) {

	}

}
