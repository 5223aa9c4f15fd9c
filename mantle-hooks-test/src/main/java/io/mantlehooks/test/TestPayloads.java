package io.mantlehooks.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Passage;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Builders for the ten payload types with sensible defaults, so a test names only what it
 * cares about:
 *
 * <pre class="code">
 * ModelRequestPayload request = TestPayloads.modelRequest().system("Be brief").user("hi").build();
 * ToolCallPayload call = TestPayloads.toolCall("refund").argument("amount", 250).sender("u-7").build();
 * </pre>
 *
 * Identity defaults: sender {@value #SENDER}, an empty call map and
 * {@link Channel#none()}.
 */
public final class TestPayloads {

	/** The sender id a payload has unless the test sets one. */
	public static final String SENDER = "test-user";

	private TestPayloads() {
	}

	/**
	 * Start an incoming message.
	 * @param text the user's text
	 * @return a builder
	 */
	public static IncomingMessage incomingMessage(String text) {
		return new IncomingMessage(text);
	}

	/**
	 * Start a model request with no messages, no settings and iteration 1.
	 * @return a builder
	 */
	public static ModelRequest modelRequest() {
		return new ModelRequest();
	}

	/**
	 * Start a model response.
	 * @param text the model's text, {@code null} for a response with tool calls only
	 * @return a builder
	 */
	public static ModelResponse modelResponse(@Nullable String text) {
		return new ModelResponse(text);
	}

	/**
	 * Start a tool call with no arguments, headers or metadata.
	 * @param toolName the tool's name
	 * @return a builder
	 */
	public static ToolCall toolCall(String toolName) {
		return new ToolCall(toolName);
	}

	/**
	 * Start a successful tool result.
	 * @param toolName the tool's name
	 * @param value what the tool returned
	 * @return a builder
	 */
	public static ToolResult toolResult(String toolName, String value) {
		return new ToolResult(toolName, value);
	}

	/**
	 * Start a knowledge query.
	 * @param query the search text
	 * @return a builder
	 */
	public static KnowledgeQuery knowledgeQuery(String query) {
		return new KnowledgeQuery(query);
	}

	/**
	 * Start knowledge results with no passages.
	 * @param query the search text
	 * @return a builder
	 */
	public static KnowledgeResults knowledgeResults(String query) {
		return new KnowledgeResults(query);
	}

	/**
	 * Start an outgoing text (not voice).
	 * @param text the text for the user
	 * @return a builder
	 */
	public static OutgoingText outgoingText(String text) {
		return new OutgoingText(text);
	}

	/**
	 * Start a turn-started payload (not voice, turn id {@code test-turn}).
	 * @return a builder
	 */
	public static TurnStarted turnStarted() {
		return new TurnStarted();
	}

	/**
	 * Start a turn-finished payload (turn id {@code test-turn}).
	 * @param status how the turn ended
	 * @return a builder
	 */
	public static TurnFinished turnFinished(TurnStatus status) {
		return new TurnFinished(status);
	}

	/**
	 * The identity every builder shares: sender, call and channel.
	 *
	 * @param <B> the builder type
	 */
	public abstract static class Identity<B extends Identity<B>> {

		String senderId = SENDER;

		Map<String, Object> call = new LinkedHashMap<>();

		Channel channel = Channel.none();

		/**
		 * Set the sender id.
		 * @param senderId the sender id
		 * @return this builder
		 */
		public B sender(String senderId) {
			this.senderId = senderId;
			return self();
		}

		/**
		 * Add a value to the call map.
		 * @param key the key
		 * @param value the value
		 * @return this builder
		 */
		public B call(String key, Object value) {
			this.call.put(key, value);
			return self();
		}

		/**
		 * Set the channel.
		 * @param channel the channel
		 * @return this builder
		 */
		public B channel(Channel channel) {
			this.channel = channel;
			return self();
		}

		/**
		 * Set a channel with this name and no metadata.
		 * @param name the channel name
		 * @return this builder
		 */
		public B channel(String name) {
			return channel(Channel.of(name));
		}

		@SuppressWarnings("unchecked")
		private B self() {
			return (B) this;
		}

	}

	/** Builds an {@link IncomingMessagePayload}. */
	public static final class IncomingMessage extends Identity<IncomingMessage> {

		private final String text;

		private String messageId = "test-message";

		IncomingMessage(String text) {
			this.text = text;
		}

		/**
		 * Set the message id.
		 * @param messageId the id
		 * @return this builder
		 */
		public IncomingMessage messageId(String messageId) {
			this.messageId = messageId;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public IncomingMessagePayload build() {
			return new IncomingMessagePayload(this.text, this.messageId, this.senderId, this.call, this.channel);
		}

	}

	/** Builds a {@link ModelRequestPayload}. */
	public static final class ModelRequest extends Identity<ModelRequest> {

		private final List<Message> messages = new ArrayList<>();

		private final List<String> toolNames = new ArrayList<>();

		private ModelSettings settings = ModelSettings.empty();

		private int iteration = 1;

		ModelRequest() {
		}

		/**
		 * Add a system message.
		 * @param text its text
		 * @return this builder
		 */
		public ModelRequest system(String text) {
			this.messages.add(new SystemMessage(text));
			return this;
		}

		/**
		 * Add a user message.
		 * @param text its text
		 * @return this builder
		 */
		public ModelRequest user(String text) {
			this.messages.add(new UserMessage(text));
			return this;
		}

		/**
		 * Add an assistant message.
		 * @param text its text
		 * @return this builder
		 */
		public ModelRequest assistant(String text) {
			this.messages.add(new AssistantMessage(text));
			return this;
		}

		/**
		 * Add any message.
		 * @param message the message
		 * @return this builder
		 */
		public ModelRequest message(Message message) {
			this.messages.add(message);
			return this;
		}

		/**
		 * Add tools the model is offered.
		 * @param names tool names
		 * @return this builder
		 */
		public ModelRequest tools(String... names) {
			this.toolNames.addAll(List.of(names));
			return this;
		}

		/**
		 * Set the model settings.
		 * @param settings the settings
		 * @return this builder
		 */
		public ModelRequest settings(ModelSettings settings) {
			this.settings = settings;
			return this;
		}

		/**
		 * Set the temperature.
		 * @param temperature the temperature
		 * @return this builder
		 */
		public ModelRequest temperature(double temperature) {
			this.settings = this.settings.withTemperature(temperature);
			return this;
		}

		/**
		 * Set the number of this model call in its turn.
		 * @param iteration 1 for the first call
		 * @return this builder
		 */
		public ModelRequest iteration(int iteration) {
			this.iteration = iteration;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public ModelRequestPayload build() {
			return new ModelRequestPayload(this.messages, this.settings, this.toolNames, this.iteration, this.senderId,
					this.call, this.channel);
		}

	}

	/** Builds a {@link ModelResponsePayload}. */
	public static final class ModelResponse extends Identity<ModelResponse> {

		private final @Nullable String text;

		private final List<ModelToolCall> toolCalls = new ArrayList<>();

		private @Nullable Long latencyMs = 1L;

		ModelResponse(@Nullable String text) {
			this.text = text;
		}

		/**
		 * Add a tool call the model asks for; its id is {@code call_<n>}.
		 * @param toolName the tool
		 * @param arguments its arguments
		 * @return this builder
		 */
		public ModelResponse toolCall(String toolName, Map<String, Object> arguments) {
			this.toolCalls
				.add(new ModelToolCall("call_" + (this.toolCalls.size() + 1), toolName, arguments, "function"));
			return this;
		}

		/**
		 * Set the latency.
		 * @param latencyMs milliseconds, {@code null} when unknown
		 * @return this builder
		 */
		public ModelResponse latencyMs(@Nullable Long latencyMs) {
			this.latencyMs = latencyMs;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public ModelResponsePayload build() {
			return new ModelResponsePayload(this.text, this.toolCalls, this.latencyMs, this.senderId, this.call,
					this.channel);
		}

	}

	/** Builds a {@link ToolCallPayload}. */
	public static final class ToolCall extends Identity<ToolCall> {

		private final String toolName;

		private final Map<String, Object> arguments = new LinkedHashMap<>();

		private final Map<String, String> headers = new LinkedHashMap<>();

		private final Map<String, Object> metadata = new LinkedHashMap<>();

		ToolCall(String toolName) {
			this.toolName = toolName;
		}

		/**
		 * Add an argument.
		 * @param name its name
		 * @param value its value (JSON-like: strings, numbers, booleans, lists, maps)
		 * @return this builder
		 */
		public ToolCall argument(String name, Object value) {
			this.arguments.put(name, value);
			return this;
		}

		/**
		 * Add a header.
		 * @param name its name
		 * @param value its value
		 * @return this builder
		 */
		public ToolCall header(String name, String value) {
			this.headers.put(name, value);
			return this;
		}

		/**
		 * Add a metadata entry.
		 * @param key its key
		 * @param value its value
		 * @return this builder
		 */
		public ToolCall metadata(String key, Object value) {
			this.metadata.put(key, value);
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public ToolCallPayload build() {
			return new ToolCallPayload(this.toolName, this.arguments, this.headers, this.metadata, this.senderId,
					this.call, this.channel);
		}

	}

	/** Builds a {@link ToolResultPayload}. */
	public static final class ToolResult extends Identity<ToolResult> {

		private final String toolName;

		private final String value;

		private final Map<String, Object> arguments = new LinkedHashMap<>();

		private boolean isError;

		ToolResult(String toolName, String value) {
			this.toolName = toolName;
			this.value = value;
		}

		/**
		 * Add an argument the tool was called with.
		 * @param name its name
		 * @param value its value
		 * @return this builder
		 */
		public ToolResult argument(String name, Object value) {
			this.arguments.put(name, value);
			return this;
		}

		/**
		 * Mark the result as the tool's failure.
		 * @return this builder
		 */
		public ToolResult error() {
			this.isError = true;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public ToolResultPayload build() {
			return new ToolResultPayload(this.toolName, this.arguments, this.value, this.isError, this.senderId,
					this.call, this.channel);
		}

	}

	/** Builds a {@link KnowledgeQueryPayload}. */
	public static final class KnowledgeQuery extends Identity<KnowledgeQuery> {

		private final String query;

		KnowledgeQuery(String query) {
			this.query = query;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public KnowledgeQueryPayload build() {
			return new KnowledgeQueryPayload(this.query, this.senderId, this.call, this.channel);
		}

	}

	/** Builds a {@link KnowledgeResultsPayload}. */
	public static final class KnowledgeResults extends Identity<KnowledgeResults> {

		private final String query;

		private final List<Passage> passages = new ArrayList<>();

		KnowledgeResults(String query) {
			this.query = query;
		}

		/**
		 * Add a passage with no scope, score or metadata.
		 * @param text its text
		 * @param source where it comes from
		 * @return this builder
		 */
		public KnowledgeResults passage(String text, String source) {
			return passage(new Passage(text, "", source, null, Map.of()));
		}

		/**
		 * Add a passage.
		 * @param passage the passage
		 * @return this builder
		 */
		public KnowledgeResults passage(Passage passage) {
			this.passages.add(passage);
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public KnowledgeResultsPayload build() {
			return new KnowledgeResultsPayload(this.query, this.passages, this.senderId, this.call, this.channel);
		}

	}

	/** Builds an {@link OutgoingTextPayload}. */
	public static final class OutgoingText extends Identity<OutgoingText> {

		private final String text;

		private boolean isVoice;

		private int segment;

		private boolean finalSegment = true;

		OutgoingText(String text) {
			this.text = text;
		}

		/**
		 * Make the payload one sentence of a reply streamed sentence by sentence (what an
		 * {@code @ModifyOutgoingText(stream = StreamMode.SENTENCES)} hook sees).
		 * @param segment which sentence, 0-based
		 * @param finalSegment whether it is the reply's last
		 * @return this builder
		 */
		public OutgoingText segment(int segment, boolean finalSegment) {
			if (segment < 0) {
				throw new IllegalArgumentException("'segment' must be 0 or more, not " + segment);
			}
			this.segment = segment;
			this.finalSegment = finalSegment;
			return this;
		}

		/**
		 * Mark the text as spoken.
		 * @return this builder
		 */
		public OutgoingText voice() {
			this.isVoice = true;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public OutgoingTextPayload build() {
			return new OutgoingTextPayload(this.text, this.isVoice, this.senderId, this.call, this.channel,
					this.segment, this.finalSegment);
		}

	}

	/** Builds a {@link TurnStartedPayload}. */
	public static final class TurnStarted extends Identity<TurnStarted> {

		private String turnId = "test-turn";

		private boolean isVoice;

		TurnStarted() {
		}

		/**
		 * Set the turn id.
		 * @param turnId the id
		 * @return this builder
		 */
		public TurnStarted turnId(String turnId) {
			this.turnId = turnId;
			return this;
		}

		/**
		 * Mark the turn as spoken.
		 * @return this builder
		 */
		public TurnStarted voice() {
			this.isVoice = true;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public TurnStartedPayload build() {
			return new TurnStartedPayload(this.isVoice, this.turnId, this.senderId, this.call, this.channel);
		}

	}

	/** Builds a {@link TurnFinishedPayload}. */
	public static final class TurnFinished extends Identity<TurnFinished> {

		private final TurnStatus status;

		private String turnId = "test-turn";

		TurnFinished(TurnStatus status) {
			this.status = status;
		}

		/**
		 * Set the turn id.
		 * @param turnId the id
		 * @return this builder
		 */
		public TurnFinished turnId(String turnId) {
			this.turnId = turnId;
			return this;
		}

		/**
		 * Build the payload.
		 * @return the payload
		 */
		public TurnFinishedPayload build() {
			return new TurnFinishedPayload(this.status, this.turnId, this.senderId, this.call, this.channel);
		}

	}

}
