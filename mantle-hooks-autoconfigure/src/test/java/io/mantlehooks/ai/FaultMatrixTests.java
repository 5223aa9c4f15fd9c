package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksChatClientAutoConfiguration;
import io.mantlehooks.runtime.HookLane;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.assertj.core.api.Condition;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.vectorstore.QuestionAnswerAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.document.Document;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.SimpleVectorStore;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every point, lane and fault, in {@code .call()} and {@code .stream()} turns that reach
 * every point (a knowledge search, a tool call, two model calls): a failing modify hook
 * gets its point's fail policy, a failing observer changes nothing, every turn that
 * started finishes exactly once, no exception text reaches the reply, the response
 * context, chat memory or the model, and the turn does not wait for a hook past its
 * timeout.
 * <p>
 * Only the faulty hook has a short timeout; every healthy hook's is far above what a
 * loaded machine needs, so a slow machine (or a spinning hook holding a core) can delay a
 * healthy hook but never turn it into a timeout and another fallback. The faulty hooks
 * that hang or spin are held until the case ends, so that the turn did not wait for them
 * is shown by order: the turn answered while they were still held.
 */
class FaultMatrixTests {

	private static final String QUESTION = "What is the refund policy?";

	private static final String FINAL = "Refunds take 5 days.";

	private static final String POLICY = "Refund policy: refunds take 5 days.";

	/** A limit for waiting on conditions, not a budget: well past the held hooks' cap. */
	private static final Duration WAIT = Duration.ofSeconds(FaultPlan.HOLD_CAP_SECONDS + 30);

	/** The faulty hook's timeout, by lane: it is the one meant to time out. */
	private static final Map<HookLane, String> FAULTY_TIMEOUT = Map.of(HookLane.MODIFY, "200ms", HookLane.OBSERVE,
			"100ms");

	/** Every other hook's timeout: far above what a loaded machine needs. */
	private static final String HEALTHY_TIMEOUT = "120s";

	private static final Set<Fault> OBSERVER_FAULTS = EnumSet.of(Fault.CRASH, Fault.STACK_OVERFLOW, Fault.OUT_OF_MEMORY,
			Fault.TIMEOUT, Fault.SPIN, Fault.NULL, Fault.NEVER_COMPLETES, Fault.STAGE_FAILS, Fault.UNSUPPORTED_SIGNAL);

	private static LoopbackOpenAiServer openAi;

	/** The application of the current faulty hook, started for its cases. */
	private static ConfigurableApplicationContext context;

	private static String contextHook;

	private static FaultPlan plan;

	@BeforeAll
	static void start() {
		// hundreds of turns: poll for the turns' observers often, not every 100 ms
		Awaitility.setDefaultPollInterval(Duration.ofMillis(5));
		Awaitility.setDefaultPollDelay(Duration.ZERO);
		openAi = new LoopbackOpenAiServer();
	}

	/**
	 * Use an application in which the hook that a plan names is the only one with a short
	 * timeout (the cases come grouped by hook, so each application starts once).
	 */
	private static void use(HookPoint point, HookLane lane, Mode mode) {
		String hook = "faultyHooks." + hookMethod(point, lane);
		String key = hook + ((mode == Mode.SENTENCES) ? " (sentences)" : "");
		if (key.equals(contextHook)) {
			return;
		}
		if (context != null) {
			context.close();
		}
		contextHook = key;
		context = new SpringApplicationBuilder(FaultApplication.class).web(WebApplicationType.NONE)
			.properties("fault.sentences=" + (mode == Mode.SENTENCES), "spring.ai.openai.base-url=" + openAi.baseUrl(),
					"spring.ai.openai.api-key=test-key", "spring.ai.openai.chat.model=fake-model",
					"spring.ai.openai.max-retries=0", "mantle.hooks.timeouts.modify=" + HEALTHY_TIMEOUT,
					"mantle.hooks.timeouts.observe=" + HEALTHY_TIMEOUT,
					"mantle.hooks.timeouts.hook[" + hook + "]=" + FAULTY_TIMEOUT.get(lane),
					// the cases of one hook fail it over and over: a breaker would soon
					// skip it, and this test is about each fault, not about breakers
					"mantle.hooks.circuit-breaker.enabled=false", "logging.level.io.mantlehooks=off")
			.run();
		// the first turn pays for class loading and the provider client's start
		openAi.clear();
		openAi.reply(Reply.text(FINAL));
		context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("warm up")
			.advisors(MantleHooks.identity("user-1", Channel.of("web")))
			.call()
			.content();
		context.getBean(RecordingObservers.class).seen.clear();
	}

	private static String hookMethod(HookPoint point, HookLane lane) {
		if (lane == HookLane.MODIFY) {
			return switch (point) {
				case INCOMING_MESSAGE -> "incoming";
				case MODEL_REQUEST -> "request";
				case MODEL_RESPONSE -> "response";
				case TOOL_CALL -> "toolCall";
				case TOOL_RESULT -> "toolResult";
				case KNOWLEDGE_QUERY -> "query";
				case KNOWLEDGE_RESULTS -> "results";
				case OUTGOING_TEXT -> "outgoing";
				default -> throw new IllegalArgumentException(point + " has no modify lane");
			};
		}
		return switch (point) {
			case TURN_STARTED -> "turnStarted";
			case TURN_FINISHED -> "turnFinished";
			case INCOMING_MESSAGE -> "watchIncoming";
			case MODEL_REQUEST -> "watchRequest";
			case MODEL_RESPONSE -> "watchResponse";
			case TOOL_CALL -> "watchToolCall";
			case TOOL_RESULT -> "watchToolResult";
			case KNOWLEDGE_QUERY -> "watchQuery";
			case KNOWLEDGE_RESULTS -> "watchResults";
			case OUTGOING_TEXT -> "watchOutgoing";
		};
	}

	@AfterAll
	static void stop() {
		Awaitility.reset();
		if (context != null) {
			context.close();
			context = null;
			contextHook = null;
		}
		openAi.close();
		// the logging system outlives the context: give later test classes their log
		// output back
		LoggingSystem.get(FaultMatrixTests.class.getClassLoader()).setLogLevel("io.mantlehooks", null);
	}

	@AfterEach
	void behave() {
		FaultPlan.set(null);
		Thread.interrupted();
		if (plan != null) {
			// a held hook of this case must not spin into the next one
			FaultPlan.Hold hold = plan.hold();
			plan.release();
			await().atMost(WAIT).until(() -> hold.active() == 0);
			plan = null;
		}
	}

	static Stream<Arguments> modifyCases() {
		List<Arguments> cases = new ArrayList<>();
		// grouped by point: one application per faulty hook
		for (HookPoint point : HookPoint.values()) {
			if (!point.hasModifyLane()) {
				continue;
			}
			for (Mode mode : modes(point)) {
				for (Fault fault : Fault.values()) {
					if (fault != Fault.CALLER_INTERRUPTED || mode == Mode.CALL) {
						cases.add(Arguments.of(mode, point, fault));
					}
				}
			}
		}
		return cases.stream();
	}

	static Stream<Arguments> observeCases() {
		List<Arguments> cases = new ArrayList<>();
		for (HookPoint point : HookPoint.values()) {
			for (Mode mode : modes(point)) {
				for (Fault fault : OBSERVER_FAULTS) {
					cases.add(Arguments.of(mode, point, fault));
				}
			}
		}
		return cases.stream();
	}

	/**
	 * The modes a point's cases run in: the outgoing-text point also with its hook
	 * rewriting the stream sentence by sentence.
	 */
	private static List<Mode> modes(HookPoint point) {
		return (point == HookPoint.OUTGOING_TEXT) ? List.of(Mode.values()) : List.of(Mode.CALL, Mode.STREAM);
	}

	@ParameterizedTest(name = "{0} {1} modify hook: {2}")
	@MethodSource("modifyCases")
	void faultyModifyHookGetsItsPointsFailPolicy(Mode mode, HookPoint point, Fault fault) throws Exception {
		use(point, HookLane.MODIFY, mode);
		Turn turn = run(mode, new FaultPlan(point, HookLane.MODIFY, fault));
		if (fault == Fault.CALLER_INTERRUPTED) {
			assertThat(turn.interrupted).as("interrupt flag kept").isTrue();
			assertThat(turn.text).isEmpty();
			assertThat(turn.context).containsEntry(MantleHooks.OUTCOME, "cancelled");
			assertThat(turn.memory).noneMatch((line) -> line.startsWith("ASSISTANT"));
			assertFinishedOnce(turn, (point == HookPoint.INCOMING_MESSAGE) ? null : TurnStatus.CANCELLED);
			return;
		}
		boolean fails = fault.isFailure();
		String expected = switch (point) {
			case INCOMING_MESSAGE -> fails ? "Sorry, I can't help with that request." : FINAL;
			case MODEL_REQUEST -> fails ? "Sorry, something went wrong on our side. Please try again." : FINAL;
			case TOOL_CALL -> fails ? "Sorry, I couldn't complete that action. Please try again." : FINAL;
			default -> FINAL;
		};
		assertThat(turn.text).isEqualTo(expected);
		boolean modelSkipped = fails && (point == HookPoint.INCOMING_MESSAGE || point == HookPoint.MODEL_REQUEST);
		boolean batchClosed = fails && point == HookPoint.TOOL_CALL;
		assertThat(turn.requests).hasSize(modelSkipped ? 0 : (batchClosed ? 1 : 2));
		assertThat(turn.toolRuns).isEqualTo((modelSkipped || batchClosed) ? 0 : 1);
		if (modelSkipped || batchClosed) {
			assertThat(turn.context).containsEntry(MantleHooks.OUTCOME, "hook_error");
		}
		else {
			assertThat(turn.context).doesNotContainKey(MantleHooks.OUTCOME);
		}
		if (!modelSkipped) {
			// a failed query hook skips the search; a failed results hook keeps what
			// was found
			assertThat(turn.requests.get(0))
				.is(condition(!(fails && point == HookPoint.KNOWLEDGE_QUERY), "contains the policy"));
		}
		assertFinishedOnce(turn, (point == HookPoint.INCOMING_MESSAGE && fails) ? null : TurnStatus.COMPLETED);
		// a payload of another turn is put back to this turn's identity before anyone
		// sees it
		assertThat(context.getBean(RecordingObservers.class).seen).allSatisfy((payload) -> {
			assertThat(payload.senderId()).isEqualTo("user-1");
			assertThat(payload.channel()).isEqualTo(Channel.of("web"));
		});
		assertNoSecret(turn);
		assertNotWaitedFor(turn, fault);
	}

	@ParameterizedTest(name = "{0} {1} observer: {2}")
	@MethodSource("observeCases")
	void faultyObserverChangesNothing(Mode mode, HookPoint point, Fault fault) throws Exception {
		use(point, HookLane.OBSERVE, mode);
		Turn turn = run(mode, new FaultPlan(point, HookLane.OBSERVE, fault));
		assertThat(turn.text).isEqualTo(FINAL);
		assertThat(turn.requests).hasSize(2);
		assertThat(turn.requests.get(0)).contains(POLICY);
		assertThat(turn.toolRuns).isOne();
		assertThat(turn.context).doesNotContainKey(MantleHooks.OUTCOME);
		assertFinishedOnce(turn, TurnStatus.COMPLETED);
		assertNoSecret(turn);
		assertNotWaitedFor(turn, fault);
	}

	/**
	 * The turn answered while the hanging or spinning hook was still held, or after its
	 * timeout interrupted it: it did not wait for the hook to end. (A turn that waited
	 * would answer only after the hold's cap, and the hook says so.)
	 */
	private static void assertNotWaitedFor(Turn turn, Fault fault) {
		assertThat(turn.heldEnd).as("how the held hook ended before the turn answered").isNotEqualTo(FaultPlan.End.CAP);
		if (fault == Fault.SPIN && turn.entered) {
			// it ignores interrupts: it can only have been still spinning
			assertThat(turn.heldEnd).as("spinning hook still held when the turn answered").isNull();
		}
	}

	private static Condition<String> condition(boolean containsPolicy, String description) {
		return new Condition<>((text) -> text.contains(POLICY) == containsPolicy,
				(containsPolicy ? "" : "not ") + description);
	}

	private static void assertFinishedOnce(Turn turn, TurnStatus status) {
		RecordingObservers observers = context.getBean(RecordingObservers.class);
		if (status == null) {
			// a rejected message starts no turn, so no turn finishes
			await().during(Duration.ofMillis(50)).atMost(WAIT).until(() -> true);
			assertThat(observers.of(TurnStartedPayload.class)).noneMatch((started) -> started.turnId().equals(turn.id));
			assertThat(observers.of(TurnFinishedPayload.class))
				.noneMatch((finished) -> finished.turnId().equals(turn.id));
			return;
		}
		await().atMost(WAIT)
			.until(() -> observers.of(TurnFinishedPayload.class)
				.stream()
				.anyMatch((finished) -> finished.turnId().equals(turn.id)));
		await().during(Duration.ofMillis(50)).atMost(WAIT).until(() -> true);
		assertThat(observers.of(TurnFinishedPayload.class)).filteredOn((finished) -> finished.turnId().equals(turn.id))
			.singleElement()
			.extracting(TurnFinishedPayload::status)
			.isEqualTo(status);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(observers.of(TurnStartedPayload.class))
				.filteredOn((started) -> started.turnId().equals(turn.id))
				.hasSize(1));
	}

	private static void assertNoSecret(Turn turn) {
		assertThat(turn.text).doesNotContain(FaultyHooks.SECRET);
		assertThat(turn.context.values())
			.allSatisfy((value) -> assertThat(String.valueOf(value)).doesNotContain(FaultyHooks.SECRET));
		assertThat(turn.memory).allSatisfy((line) -> assertThat(line).doesNotContain(FaultyHooks.SECRET));
		assertThat(turn.requests).allSatisfy((request) -> assertThat(request).doesNotContain(FaultyHooks.SECRET));
	}

	private Turn run(Mode mode, FaultPlan plan) throws InterruptedException {
		openAi.clear();
		openAi.reply(Reply.toolCalls(new ToolCall("call_1", "lookup", "{\"id\":\"A1\"}")), Reply.text(FINAL));
		ChatMemory memory = MessageWindowChatMemory.builder().build();
		LookupTools tools = new LookupTools();
		ChatClient.ChatClientRequestSpec spec = context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(QUESTION)
			.tools(tools)
			.advisors(QuestionAnswerAdvisor.builder(context.getBean(VectorStore.class))
				.searchRequest(SearchRequest.builder().topK(1).similarityThresholdAll().build())
				.build())
			.advisors(ChatTestSupport.memory(memory, "conversation-1"))
			.advisors(MantleHooks.identity("user-1", Channel.of("web")));
		Thread interrupter = null;
		if (plan.fault() == Fault.CALLER_INTERRUPTED) {
			Thread caller = Thread.currentThread();
			interrupter = new Thread(() -> {
				try {
					if (plan.entered().await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
						caller.interrupt();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			interrupter.start();
		}
		FaultMatrixTests.plan = plan;
		FaultPlan.set(plan);
		ChatClientResponse response;
		String text;
		if (mode == Mode.CALL) {
			response = spec.call().chatClientResponse();
			text = text(response);
		}
		else {
			List<ChatClientResponse> chunks = spec.stream().chatClientResponse().collectList().block(WAIT);
			StringBuilder joined = new StringBuilder();
			chunks.forEach((chunk) -> joined.append(text(chunk)));
			text = joined.toString();
			response = chunks.get(chunks.size() - 1);
		}
		FaultPlan.End heldEnd = plan.hold().firstEnd();
		boolean entered = plan.entered().getCount() == 0;
		boolean interrupted = Thread.interrupted();
		FaultPlan.set(null);
		if (interrupter != null) {
			// a hook that was never entered leaves the caller alone: the assertions
			// say so
			interrupter.interrupt();
			interrupter.join();
		}
		List<String> requests = new ArrayList<>();
		for (int i = 0; i < openAi.requests().size(); i++) {
			requests.add(String.join("\n", openAi.messages(i)));
		}
		return new Turn(String.valueOf(response.context().get(MantleHooks.TURN_ID)), text, response.context(), requests,
				tools.calls.size(), ChatTurnTests.texts(memory.get("conversation-1")), heldEnd, entered, interrupted);
	}

	private static String text(ChatClientResponse response) {
		if (response.chatResponse() == null || response.chatResponse().getResult() == null) {
			return "";
		}
		String text = response.chatResponse().getResult().getOutput().getText();
		return (text != null) ? text : "";
	}

	enum Mode {

		CALL, STREAM,

		/**
		 * Streamed, with the outgoing-text hook rewriting the stream sentence by
		 * sentence.
		 */
		SENTENCES

	}

	record Turn(String id, String text, Map<String, Object> context, List<String> requests, int toolRuns,
			List<String> memory, FaultPlan.@Nullable End heldEnd, boolean entered, boolean interrupted) {
	}

	static class LookupTools {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Tool(name = "lookup", description = "Look up an order")
		String lookup(String id) {
			this.calls.add(id);
			return id + " found";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ OpenAiChatAutoConfiguration.class, ToolCallingAutoConfiguration.class,
			ChatClientAutoConfiguration.class, MantleHooksAutoConfiguration.class,
			MantleHooksChatClientAutoConfiguration.class })
	static class FaultApplication {

		@Bean
		KeywordEmbeddingModel keywordEmbeddingModel() {
			return new KeywordEmbeddingModel();
		}

		@Bean
		SimpleVectorStore vectorStore(KeywordEmbeddingModel embeddingModel) {
			SimpleVectorStore store = SimpleVectorStore.builder(embeddingModel).build();
			store.add(List.of(new Document("refunds", POLICY, Map.of("source", "refunds.md")),
					new Document("shipping", "Shipping policy: shipping takes 2 days.", Map.of())));
			return store;
		}

		@Bean
		FaultyHooks faultyHooks(Environment environment) {
			return environment.getProperty("fault.sentences", Boolean.class, false) ? new FaultySentenceHooks()
					: new FaultyHooks();
		}

		@Bean
		RecordingObservers recordingObservers() {
			return new RecordingObservers();
		}

	}

	/**
	 * The same hooks, with the outgoing-text hook rewriting a streamed reply sentence by
	 * sentence.
	 */
	static class FaultySentenceHooks extends FaultyHooks {

		@Override
		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		public CompletionStage<OutgoingTextPayload> outgoing(OutgoingTextPayload payload) {
			return super.outgoing(payload);
		}

	}

}
