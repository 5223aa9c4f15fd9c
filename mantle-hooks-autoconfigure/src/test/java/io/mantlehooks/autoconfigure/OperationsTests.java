package io.mantlehooks.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.jayway.jsonpath.JsonPath;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an operator sees of the hooks in an application with Spring Boot Actuator: the
 * {@code mantle.hook} and {@code mantle.turn} meters, the in-flight gauges, the
 * Resilience4j meters, the {@code mantlehooks} endpoint over HTTP, and the turn id on
 * every warning. Each fault happens once, and is counted once.
 */
class OperationsTests {

	private static final String BREAKER = "opsHooks.keepResponse@model-response";

	private static LoopbackOpenAiServer openAi;

	private static ConfigurableApplicationContext app;

	private static ListAppender<ILoggingEvent> logs;

	private static Map<String, ChatClientResponse> turns;

	@BeforeAll
	static void runOneOfEachFault() throws InterruptedException {
		openAi = new LoopbackOpenAiServer();
		app = new SpringApplicationBuilder(OpsApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.ai.openai.base-url=" + openAi.baseUrl(),
					"spring.ai.openai.api-key=test-key", "spring.ai.openai.chat.model=fake-model",
					"spring.ai.openai.max-retries=0", "spring.ai.mcp.client.enabled=false",
					"spring.ai.mcp.server.enabled=false", "spring.ai.model.embedding=none",
					"spring.ai.model.image=none", "spring.ai.model.audio.speech=none",
					"spring.ai.model.audio.transcription=none", "spring.ai.model.moderation=none",
					"management.endpoints.web.exposure.include=mantlehooks,metrics",
					// timeouts from each source (lane, point, hook, annotation), all far
					// above what a loaded machine needs for the calls meant to succeed
					"mantle.hooks.observers.max-concurrent=1", "mantle.hooks.timeouts.modify=60s",
					"mantle.hooks.timeouts.observe=60s", "mantle.hooks.timeouts.point.model-response=90s",
					"mantle.hooks.timeouts.hook.[opsHooks.failRequest]=75s")
			.run();
		OpsHooks hooks = app.getBean(OpsHooks.class);
		app.getBean(CircuitBreakerRegistry.class).circuitBreaker(BREAKER).transitionToOpenState();
		logs = new ListAppender<>();
		logs.start();
		((Logger) LoggerFactory.getLogger("io.mantlehooks")).addAppender(logs);
		turns = new LinkedHashMap<>();
		turns.put("rejected", turn("buy spam now"));
		turns.put("crash", turn("crash the guard"));
		openAi.text("A slow answer.");
		turns.put("timeout", turn("a slow question"));
		openAi.text("Held.");
		turns.put("held", turn("hold the audit"));
		assertThat(hooks.holding.await(60, TimeUnit.SECONDS)).isTrue();
		// a busy observer is never dropped: only a hung one (past its timeout, still
		// running) is limited to observers.max-concurrent
		HookMethod audit = app.getBean(HookRegistry.class).everyAgent().observers(HookPoint.MODEL_REQUEST).get(0);
		await().atMost(Duration.ofSeconds(60)).until(() -> audit.abandonedInFlight() == 1);
		openAi.text("Dropped.");
		turns.put("dropped", turn("hold the audit again"));
		hooks.release.countDown();
		// the streamed turns' audits must find the released one gone, or they are dropped
		// too: it returns on its own thread, after the release
		await().atMost(Duration.ofSeconds(60)).until(() -> audit.abandonedInFlight() == 0);
		openAi.text("Streamed in four words.");
		assertThat(String.join("", stream().collectList().block())).isEqualTo("Streamed in four words.");
		openAi.text("Cancelled after the first word.");
		assertThat(stream().take(1).collectList().block()).hasSize(1);
		await().untilAsserted(() -> assertThat(app.getBean(HookRunner.class).getObserversInFlight()).isZero());
	}

	@AfterAll
	static void stop() {
		((Logger) LoggerFactory.getLogger("io.mantlehooks")).detachAppender(logs);
		app.close();
		openAi.close();
	}

	private static ChatClientResponse turn(String text) {
		return app.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(text)
			.advisors(MantleHooks.identity("user-1", Channel.of("web")))
			.call()
			.chatClientResponse();
	}

	private static Flux<String> stream() {
		return app.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("stream it")
			.advisors(MantleHooks.identity("user-1", Channel.of("web")))
			.stream()
			.content();
	}

	@Test
	void eachFaultIsOneHookObservationWithItsOutcome() {
		MeterRegistry meters = app.getBean(MeterRegistry.class);
		assertThat(hookCount(meters, "opsHooks.screen", "rejected")).isOne();
		assertThat(hookCount(meters, "opsHooks.failRequest", "crash")).isOne();
		assertThat(hookCount(meters, "opsHooks.slowReply", "timeout")).isOne();
		assertThat(hookCount(meters, "opsHooks.audit", "dropped")).isOne();
		assertThat(hookCount(meters, "opsHooks.audit", "timeout")).isOne();
		assertThat(hookCount(meters, "opsHooks.keepResponse", "circuit_open")).isEqualTo(5);
		assertThat(meters.get("mantle.hook")
			.tag("mantle.hook.name", "opsHooks.audit")
			.tag("mantle.hook.lane", "observe")
			.tag("mantle.hook.point", "model-request")
			.tag("mantle.hook.outcome", "proceeded")
			.timer()
			.count()).isEqualTo(4);
		// how long each invocation waited for a thread, with the same tags
		assertThat(meters.get("mantle.hook.queued")
			.tag("mantle.hook.name", "opsHooks.audit")
			.tag("mantle.hook.lane", "observe")
			.tag("mantle.hook.point", "model-request")
			.tag("mantle.hook.outcome", "proceeded")
			.timer()
			.count()).isEqualTo(4);
		assertThat(meters.get("mantle.hook.queued").tag("mantle.hook.outcome", "dropped").timer().count()).isOne();
	}

	@Test
	void hookObservationsAreChildrenOfTheirTurnsObservation() {
		List<Observation.Context> stopped = app.getBean(RecordingHandler.class).stopped;
		List<Observation.Context> hookContexts = stopped.stream()
			.filter((context) -> "mantle.hook".equals(context.getName()))
			.toList();
		assertThat(hookContexts).hasSizeGreaterThan(10).allSatisfy((context) -> {
			ObservationView parent = context.getParentObservation();
			assertThat(parent).isNotNull();
			assertThat(parent.getContextView().getName()).isEqualTo("mantle.turn");
			assertThat(((TurnObservationContext) parent.getContextView()).getTurnId())
				.isEqualTo(((HookObservationContext) context).getTurnId());
		});
		assertThat(stopped).filteredOn((context) -> "mantle.turn".equals(context.getName()))
			.hasSize(7)
			.allSatisfy((context) -> assertThat(context.getParentObservation()).isNotNull());
	}

	@Test
	void eachTurnIsOneTurnObservationWithItsOutcomeAndChannel() {
		MeterRegistry meters = app.getBean(MeterRegistry.class);
		assertThat(turnCount(meters, "rejected")).isOne();
		assertThat(turnCount(meters, "hook_error")).isOne();
		assertThat(turnCount(meters, "completed")).isEqualTo(4);
		await().untilAsserted(() -> assertThat(turnCount(meters, "cancelled")).isOne());
		assertThat(turns.get("rejected").context()).containsEntry(MantleHooks.OUTCOME, "rejected");
		assertThat(turns.get("crash").context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
		assertThat(turns.get("timeout").chatResponse().getResult().getOutput().getText()).isEqualTo("A slow answer.");
	}

	@Test
	void gaugesAndResilience4jMetersArePresent() {
		MeterRegistry meters = app.getBean(MeterRegistry.class);
		assertThat(meters.get("mantle.hooks.in.flight").tag("mantle.hook.lane", "observe").gauge().value()).isZero();
		assertThat(meters.get("mantle.hooks.in.flight").tag("mantle.hook.lane", "modify").gauge()).isNotNull();
		assertThat(meters.get("resilience4j.circuitbreaker.state")
			.tag("name", BREAKER)
			.tag("state", "open")
			.gauge()
			.value()).isEqualTo(1);
		assertThat(meters.get("resilience4j.bulkhead.max.allowed.concurrent.calls")
			.tag("name", "opsHooks.audit@model-request")
			.gauge()
			.value()).isEqualTo(1);
	}

	@Test
	void endpointDescribesEachPointAndCountsEachOutcome() throws Exception {
		String json = get("/actuator/mantlehooks");
		assertThat(JsonPath.<Integer>read(json, "$.limits.observersMaxConcurrent")).isOne();
		assertThat(JsonPath.<Integer>read(json, "$.limits.inFlight.pastTimeout")).isZero();
		assertThat(JsonPath.<Integer>read(json, "$.limits.modifyMaxConcurrent")).isEqualTo(64);
		assertThat(JsonPath.<Boolean>read(json, "$.limits.circuitBreakers")).isTrue();
		assertThat(JsonPath.<String>read(json, "$.points.incoming-message.failPolicy")).isEqualTo("closed");
		assertThat(JsonPath.<String>read(json, "$.points.incoming-message.modify.name")).isEqualTo("opsHooks.screen");
		assertThat(JsonPath.<Integer>read(json, "$.points.incoming-message.modify.outcomes.rejected")).isOne();
		assertThat(JsonPath.<String>read(json, "$.points.incoming-message.modify.timeoutSource")).isEqualTo("lane");
		assertThat(JsonPath.<Integer>read(json, "$.points.incoming-message.modify.timeoutMs")).isEqualTo(60_000);
		assertThat(JsonPath.<String>read(json, "$.points.model-request.modify.timeoutSource")).isEqualTo("hook");
		assertThat(JsonPath.<Integer>read(json, "$.points.model-request.modify.timeoutMs")).isEqualTo(75_000);
		assertThat(JsonPath.<Integer>read(json, "$.points.model-request.modify.outcomes.crash")).isOne();
		assertThat(JsonPath.<String>read(json, "$.points.model-response.modify.timeoutSource")).isEqualTo("point");
		assertThat(JsonPath.<String>read(json, "$.points.model-response.modify.circuit")).isEqualTo("open");
		assertThat(JsonPath.<Integer>read(json, "$.points.model-response.modify.outcomes.circuit_open")).isEqualTo(5);
		assertThat(JsonPath.<Integer>read(json, "$.points.model-response.modify.outcomes.proceeded")).isZero();
		assertThat(JsonPath.<String>read(json, "$.points.outgoing-text.modify.timeoutSource")).isEqualTo("annotation");
		assertThat(JsonPath.<Integer>read(json, "$.points.outgoing-text.modify.outcomes.timeout")).isOne();
		assertThat(JsonPath.<String>read(json, "$.points.model-request.observers[0].name")).isEqualTo("opsHooks.audit");
		assertThat(JsonPath.<Integer>read(json, "$.points.model-request.observers[0].outcomes.dropped")).isOne();
		assertThat(JsonPath.<Map<String, Object>>read(json, "$.points.model-request.observers[0]"))
			.doesNotContainKey("circuit");
		assertThat(JsonPath.<Map<String, Object>>read(json, "$.points.turn-started")).doesNotContainKey("failPolicy")
			.doesNotContainKey("modify");
		assertThat(JsonPath.<List<Object>>read(json, "$.points.tool-call.observers")).isEmpty();
	}

	@Test
	void everyRunnerWarningCarriesItsTurnId() {
		String crashTurn = (String) turns.get("crash").context().get(MantleHooks.TURN_ID);
		List<ILoggingEvent> warnings = logs.list.stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
			.filter((event) -> event.getLoggerName().startsWith("io.mantlehooks.runtime"))
			.toList();
		assertThat(warnings).isNotEmpty()
			.allSatisfy((event) -> assertThat(event.getMDCPropertyMap()).containsKey(HookScope.MDC_TURN_ID));
		assertThat(warnings).filteredOn((event) -> event.getFormattedMessage().contains("opsHooks.failRequest"))
			.singleElement()
			.satisfies(
					(event) -> assertThat(event.getMDCPropertyMap()).containsEntry(HookScope.MDC_TURN_ID, crashTurn));
	}

	private static long hookCount(MeterRegistry meters, String hook, String outcome) {
		RequiredSearch search = meters.get("mantle.hook")
			.tag("mantle.hook.name", hook)
			.tag("mantle.hook.outcome", outcome);
		return search.timer().count();
	}

	private static long turnCount(MeterRegistry meters, String outcome) {
		return meters.get("mantle.turn")
			.tag("mantle.turn.outcome", outcome)
			.tag("mantle.channel", "web")
			.timer()
			.count();
	}

	private static String get(String path) throws Exception {
		String port = app.getEnvironment().getProperty("local.server.port");
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		return response.body();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class OpsApplication {

		@Bean
		OpsHooks opsHooks() {
			return new OpsHooks();
		}

		@Bean
		RecordingHandler recordingHandler() {
			return new RecordingHandler();
		}

	}

	static class RecordingHandler implements ObservationHandler<Observation.Context> {

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof HookObservationContext || context instanceof TurnObservationContext;
		}

	}

	static class OpsHooks {

		final CountDownLatch holding = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@ModifyIncomingMessage
		IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_message_rejected");
			}
			return message;
		}

		@ModifyModelRequest
		ModelRequestPayload failRequest(ModelRequestPayload request) {
			if (request.messages().toString().contains("crash")) {
				throw new IllegalStateException("guard store down");
			}
			return request;
		}

		// the hung call waits it out once; the other calls never reach it
		@OnModelRequest(timeoutMs = 3000)
		void audit(ModelRequestPayload request) {
			if (request.messages().toString().contains("hold the audit") && this.holding.getCount() > 0) {
				this.holding.countDown();
				// hung: ignores the interrupt of its timeout until the test releases it
				Stalls.awaitIgnoringInterrupts(this.release, 30_000);
			}
		}

		@ModifyModelResponse
		ModelResponsePayload keepResponse(ModelResponsePayload response) {
			return response;
		}

		// the slow call waits it out once; the other calls never reach it
		@ModifyOutgoingText(timeoutMs = 3000)
		OutgoingTextPayload slowReply(OutgoingTextPayload outgoing) throws InterruptedException {
			if (outgoing.text().contains("slow")) {
				// until its timeout interrupts it
				Thread.sleep(120_000);
			}
			return outgoing;
		}

	}

}
