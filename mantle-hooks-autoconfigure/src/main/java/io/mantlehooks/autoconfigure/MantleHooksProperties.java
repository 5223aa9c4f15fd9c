package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPoint;
import io.mantlehooks.UnhookedCallPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.util.Assert;

/**
 * Configuration properties for mantle-hooks.
 */
@ConfigurationProperties(MantleHooksProperties.CONFIG_PREFIX)
public class MantleHooksProperties {

	/** The prefix of all mantle-hooks properties. */
	public static final String CONFIG_PREFIX = "mantle.hooks";

	/**
	 * Whether hook methods are discovered and wired into chat turns.
	 */
	private boolean enabled = true;

	/**
	 * Maximum number of model calls per turn, retries included.
	 */
	private int maxIterations = 10;

	/**
	 * Named replies (for example utter_spam_rejected) that hooks pick with
	 * HookRejection's response message; they override the packaged defaults.
	 */
	private Map<String, String> responses = new LinkedHashMap<>();

	/**
	 * What happens when a ChatModel is called outside a hooked turn (a ChatClient built
	 * without the hook advisors): warn once per calling class, fail the call, or ignore
	 * it.
	 */
	private UnhookedCallPolicy unhookedCalls = UnhookedCallPolicy.WARN;

	private final Timeouts timeouts = new Timeouts();

	private final Observers observers = new Observers();

	private final Modify modify = new Modify();

	private final Executor executor = new Executor();

	private final CircuitBreaker circuitBreaker = new CircuitBreaker();

	private final Transcript transcript = new Transcript();

	private final Approvals approvals = new Approvals();

	private final Jdbc jdbc = new Jdbc();

	private final Console console = new Console();

	private final Streaming streaming = new Streaming();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getMaxIterations() {
		return this.maxIterations;
	}

	public void setMaxIterations(int maxIterations) {
		this.maxIterations = maxIterations;
	}

	public Map<String, String> getResponses() {
		return this.responses;
	}

	public void setResponses(Map<String, String> responses) {
		this.responses = responses;
	}

	public UnhookedCallPolicy getUnhookedCalls() {
		return this.unhookedCalls;
	}

	public void setUnhookedCalls(UnhookedCallPolicy unhookedCalls) {
		this.unhookedCalls = unhookedCalls;
	}

	public Executor getExecutor() {
		return this.executor;
	}

	public Timeouts getTimeouts() {
		return this.timeouts;
	}

	public Observers getObservers() {
		return this.observers;
	}

	public Modify getModify() {
		return this.modify;
	}

	public CircuitBreaker getCircuitBreaker() {
		return this.circuitBreaker;
	}

	public Transcript getTranscript() {
		return this.transcript;
	}

	public Approvals getApprovals() {
		return this.approvals;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Streaming getStreaming() {
		return this.streaming;
	}

	public Console getConsole() {
		return this.console;
	}

	/**
	 * When the starter creates its tables (Spring Boot's {@code initialize-schema}
	 * convention).
	 */
	public enum SchemaInitialization {

		/** Always, whatever the database. */
		ALWAYS,

		/** Only for an embedded database (H2, HSQLDB, Derby). */
		EMBEDDED,

		/** Never: create the tables yourself. */
		NEVER

	}

	/**
	 * Where conversation state is kept.
	 */
	public enum StoreType {

		/** In the application's database (its {@code DataSource}). */
		JDBC,

		/** In this instance's memory. */
		MEMORY

	}

	/**
	 * Hook timeouts.
	 */
	public static class Timeouts {

		/**
		 * Default timeout of each observe hook invocation.
		 */
		private Duration observe = Duration.ofMillis(100);

		/**
		 * Default timeout of each modify hook invocation.
		 */
		private Duration modify = Duration.ofMillis(500);

		/**
		 * Modify hook timeout per point (for example model-request), overriding the
		 * modify default.
		 */
		private Map<HookPoint, Duration> point = new EnumMap<>(HookPoint.class);

		/**
		 * Timeout per hook (a duration such as 2s or 750ms), keyed by
		 * "beanName.methodName"; wins over the annotation's timeoutMs and every default.
		 */
		// String values: Boot binds dotted keys of a Map<String, String> without
		// brackets, which a Map<String, Duration> would not
		private Map<String, String> hook = new LinkedHashMap<>();

		public Duration getObserve() {
			return this.observe;
		}

		public void setObserve(Duration observe) {
			this.observe = observe;
		}

		public Duration getModify() {
			return this.modify;
		}

		public void setModify(Duration modify) {
			this.modify = modify;
		}

		public Map<HookPoint, Duration> getPoint() {
			return this.point;
		}

		public void setPoint(Map<HookPoint, Duration> point) {
			this.point = point;
		}

		public Map<String, String> getHook() {
			return this.hook;
		}

		public void setHook(Map<String, String> hook) {
			this.hook = hook;
		}

	}

	/**
	 * Observe lane limits.
	 */
	public static class Observers {

		/**
		 * Maximum number of invocations per observe hook that outlived their timeout and
		 * still run (a hung hook); at it further invocations are dropped and counted,
		 * never queued. Healthy invocations are never limited: load is not a fault.
		 */
		private int maxConcurrent = 64;

		public int getMaxConcurrent() {
			return this.maxConcurrent;
		}

		public void setMaxConcurrent(int maxConcurrent) {
			this.maxConcurrent = maxConcurrent;
		}

	}

	/**
	 * Modify lane limits.
	 */
	public static class Modify {

		/**
		 * Maximum number of invocations per modify hook that outlived their timeout and
		 * still run (a hung hook); at it the point's fail policy applies at once. Healthy
		 * invocations are never limited: load is not a fault.
		 */
		private int maxConcurrent = 64;

		public int getMaxConcurrent() {
			return this.maxConcurrent;
		}

		public void setMaxConcurrent(int maxConcurrent) {
			this.maxConcurrent = maxConcurrent;
		}

	}

	/**
	 * The hook executor.
	 */
	public static class Executor {

		/** The default of {@code pool-size}. */
		public static final int DEFAULT_POOL_SIZE = 200;

		/**
		 * Hooks that run at once, on platform or virtual threads; further hooks wait in a
		 * queue, and that wait never counts against their timeouts. Sized for hooks that
		 * block (a call to a moderation service).
		 */
		private int poolSize = DEFAULT_POOL_SIZE;

		/**
		 * Whether hooks may run on virtual threads when Spring Boot's
		 * spring.threads.virtual.enabled is true.
		 */
		private boolean virtualThreads = true;

		public int getPoolSize() {
			return this.poolSize;
		}

		public void setPoolSize(int poolSize) {
			this.poolSize = poolSize;
		}

		@DeprecatedConfigurationProperty(replacement = "spring.threads.virtual.enabled",
				reason = "Hooks follow Spring Boot's switch for virtual threads. This property can only turn them "
						+ "off for hooks while the switch is on.",
				since = "0.1.0")
		@Deprecated(since = "0.1.0")
		public boolean isVirtualThreads() {
			return this.virtualThreads;
		}

		@Deprecated(since = "0.1.0")
		public void setVirtualThreads(boolean virtualThreads) {
			this.virtualThreads = virtualThreads;
		}

	}

	/**
	 * Circuit breakers of modify hooks.
	 */
	public static class CircuitBreaker {

		/**
		 * Whether each modify hook gets a circuit breaker that skips it (the point's fail
		 * policy applies at once) after repeated failures.
		 */
		private boolean enabled = true;

		/**
		 * Failure rate, in percent of the recent calls, that opens a hook's breaker.
		 * Crashes, timeouts and invalid returns count as failures; signals, and calls
		 * that were refused without running (a hung hook's full bulkhead), do not.
		 */
		private float failureRateThreshold = 50;

		/**
		 * Calls a breaker records before it computes the failure rate.
		 */
		private int minimumNumberOfCalls = 20;

		/**
		 * Whether the failure rate is computed over the calls of the last
		 * sliding-window-size seconds (time-based) or over the last sliding-window-size
		 * calls (count-based).
		 */
		private SlidingWindowType slidingWindowType = SlidingWindowType.TIME_BASED;

		/**
		 * Size of the window the failure rate is computed over: seconds when time-based,
		 * calls when count-based.
		 */
		private int slidingWindowSize = 60;

		/**
		 * How long an open breaker skips its hook before it lets probe calls through.
		 */
		private Duration waitDurationInOpenState = Duration.ofSeconds(10);

		/**
		 * Settings per hook, keyed "beanName.methodName" (write the key in brackets:
		 * "[piiRedactor.redact]"); unset values come from the settings above.
		 */
		private Map<String, HookCircuitBreaker> hook = new LinkedHashMap<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public float getFailureRateThreshold() {
			return this.failureRateThreshold;
		}

		public void setFailureRateThreshold(float failureRateThreshold) {
			this.failureRateThreshold = failureRateThreshold;
		}

		public int getMinimumNumberOfCalls() {
			return this.minimumNumberOfCalls;
		}

		public void setMinimumNumberOfCalls(int minimumNumberOfCalls) {
			this.minimumNumberOfCalls = minimumNumberOfCalls;
		}

		public SlidingWindowType getSlidingWindowType() {
			return this.slidingWindowType;
		}

		public void setSlidingWindowType(SlidingWindowType slidingWindowType) {
			this.slidingWindowType = slidingWindowType;
		}

		public int getSlidingWindowSize() {
			return this.slidingWindowSize;
		}

		public void setSlidingWindowSize(int slidingWindowSize) {
			this.slidingWindowSize = slidingWindowSize;
		}

		public Duration getWaitDurationInOpenState() {
			return this.waitDurationInOpenState;
		}

		public void setWaitDurationInOpenState(Duration waitDurationInOpenState) {
			this.waitDurationInOpenState = waitDurationInOpenState;
		}

		public Map<String, HookCircuitBreaker> getHook() {
			return this.hook;
		}

		public void setHook(Map<String, HookCircuitBreaker> hook) {
			this.hook = hook;
		}

	}

	/**
	 * Circuit-breaker settings of one modify hook; unset values come from the defaults.
	 */
	public static class HookCircuitBreaker {

		/**
		 * Failure rate, in percent, that opens this hook's breaker.
		 */
		private @Nullable Float failureRateThreshold;

		/**
		 * Calls this hook's breaker records before it computes the failure rate.
		 */
		private @Nullable Integer minimumNumberOfCalls;

		/**
		 * Whether this hook's window is time-based or count-based.
		 */
		private @Nullable SlidingWindowType slidingWindowType;

		/**
		 * Size of this hook's window: seconds when time-based, calls when count-based.
		 */
		private @Nullable Integer slidingWindowSize;

		/**
		 * How long this hook's open breaker skips it.
		 */
		private @Nullable Duration waitDurationInOpenState;

		public @Nullable Float getFailureRateThreshold() {
			return this.failureRateThreshold;
		}

		public void setFailureRateThreshold(@Nullable Float failureRateThreshold) {
			this.failureRateThreshold = failureRateThreshold;
		}

		public @Nullable Integer getMinimumNumberOfCalls() {
			return this.minimumNumberOfCalls;
		}

		public void setMinimumNumberOfCalls(@Nullable Integer minimumNumberOfCalls) {
			this.minimumNumberOfCalls = minimumNumberOfCalls;
		}

		public @Nullable SlidingWindowType getSlidingWindowType() {
			return this.slidingWindowType;
		}

		public void setSlidingWindowType(@Nullable SlidingWindowType slidingWindowType) {
			this.slidingWindowType = slidingWindowType;
		}

		public @Nullable Integer getSlidingWindowSize() {
			return this.slidingWindowSize;
		}

		public void setSlidingWindowSize(@Nullable Integer slidingWindowSize) {
			this.slidingWindowSize = slidingWindowSize;
		}

		public @Nullable Duration getWaitDurationInOpenState() {
			return this.waitDurationInOpenState;
		}

		public void setWaitDurationInOpenState(@Nullable Duration waitDurationInOpenState) {
			this.waitDurationInOpenState = waitDurationInOpenState;
		}

	}

	/**
	 * The conversation transcript.
	 */
	public static class Transcript {

		/**
		 * Whether every user message and reply is written to the transcript, rejected
		 * ones marked discarded.
		 */
		private boolean enabled;

		/**
		 * Where the transcript is kept; by default the database when the application has
		 * a DataSource, else memory.
		 */
		private @Nullable StoreType store;

		/**
		 * How many transcript entries may wait to be written to the database at once;
		 * beyond it an entry is not written, and counted and logged as a failed write.
		 */
		private int queueCapacity = 10_000;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable StoreType getStore() {
			return this.store;
		}

		public void setStore(@Nullable StoreType store) {
			this.store = store;
		}

		public int getQueueCapacity() {
			return this.queueCapacity;
		}

		public void setQueueCapacity(int queueCapacity) {
			this.queueCapacity = queueCapacity;
		}

	}

	/**
	 * Human approval of tool calls.
	 */
	public static class Approvals {

		/**
		 * Names of the tools whose calls wait for a person's approval before they run.
		 */
		private List<String> tools = new ArrayList<>();

		/**
		 * How long a paused batch can be approved or denied.
		 */
		private Duration ttl = Duration.ofMinutes(15);

		/**
		 * Where paused batches are kept; by default the database when the application has
		 * a DataSource, else memory.
		 */
		private @Nullable StoreType store;

		/**
		 * Who may approve or deny a paused batch when there is no ApprovalAuthorizer
		 * bean: the sender that paused it, or anyone in its conversation.
		 */
		private DecidedBy decidedBy = DecidedBy.SENDER;

		public List<String> getTools() {
			return this.tools;
		}

		public void setTools(List<String> tools) {
			this.tools = tools;
		}

		public Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(Duration ttl) {
			this.ttl = ttl;
		}

		public @Nullable StoreType getStore() {
			return this.store;
		}

		public void setStore(@Nullable StoreType store) {
			this.store = store;
		}

		public DecidedBy getDecidedBy() {
			return this.decidedBy;
		}

		public void setDecidedBy(DecidedBy decidedBy) {
			this.decidedBy = decidedBy;
		}

		/**
		 * Who may approve or deny a paused batch.
		 */
		public enum DecidedBy {

			/**
			 * A turn of the sender that paused the batch, in its conversation.
			 */
			SENDER,

			/**
			 * Any turn in the batch's conversation.
			 */
			CONVERSATION

		}

	}

	/**
	 * Outgoing-text hooks that see a streamed reply sentence by sentence.
	 */
	public static class Streaming {

		/**
		 * The longest segment, in characters, that a sentence-by-sentence outgoing-text
		 * hook waits for: a reply without a sentence end is cut at a whitespace near this
		 * length.
		 */
		private int maxSegmentLength = 400;

		public int getMaxSegmentLength() {
			return this.maxSegmentLength;
		}

		public void setMaxSegmentLength(int maxSegmentLength) {
			Assert.isTrue(maxSegmentLength > 0,
					() -> "mantle.hooks.streaming.max-segment-length must be positive, but was " + maxSegmentLength);
			this.maxSegmentLength = maxSegmentLength;
		}

	}

	/**
	 * The database tables of the transcript and of paused approvals.
	 */
	public static class Jdbc {

		/**
		 * When to create the tables at startup: always, only for an embedded database, or
		 * never.
		 */
		private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

		/**
		 * How long any one call of the database stores may take, getting a connection
		 * included; statements also get it as their JDBC query timeout, in whole seconds.
		 */
		private Duration queryTimeout = Duration.ofSeconds(2);

		public SchemaInitialization getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(SchemaInitialization initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public Duration getQueryTimeout() {
			return this.queryTimeout;
		}

		public void setQueryTimeout(Duration queryTimeout) {
			this.queryTimeout = queryTimeout;
		}

	}

	/**
	 * The turn console: recent turns and their hooks, in the browser and at
	 * {@code /actuator/mantlehooks/turns}.
	 */
	public static class Console {

		/**
		 * Whether recent turns are recorded and, in a servlet web application, the
		 * console page is served. Off by default, like the H2 console.
		 */
		private boolean enabled;

		/**
		 * Path of the console page.
		 */
		private String path = "/mantle-console";

		/**
		 * How many recent turns are kept in memory.
		 */
		private int maxTurns = 200;

		/**
		 * Whether the texts before and after each modify hook, the transcript texts, tool
		 * arguments and the first words of each turn's message are shown. Payloads may
		 * hold personal data.
		 */
		private boolean includeText;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			Assert.isTrue(path.startsWith("/") && path.length() > 1 && !path.endsWith("/") && !path.contains("*"),
					() -> "mantle.hooks.console.path must start with '/', name a path and not end with '/' " + "(was '"
							+ path + "')");
			this.path = path;
		}

		public int getMaxTurns() {
			return this.maxTurns;
		}

		public void setMaxTurns(int maxTurns) {
			Assert.isTrue(maxTurns > 0, () -> "mantle.hooks.console.max-turns must be positive (was " + maxTurns + ")");
			this.maxTurns = maxTurns;
		}

		public boolean isIncludeText() {
			return this.includeText;
		}

		public void setIncludeText(boolean includeText) {
			this.includeText = includeText;
		}

	}

	/**
	 * What a circuit breaker computes its failure rate over.
	 */
	public enum SlidingWindowType {

		/** The calls of the last {@code sliding-window-size} seconds. */
		TIME_BASED,

		/** The last {@code sliding-window-size} calls. */
		COUNT_BASED

	}

}
