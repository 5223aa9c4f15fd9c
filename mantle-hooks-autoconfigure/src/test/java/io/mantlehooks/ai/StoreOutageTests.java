package io.mantlehooks.ai;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.autoconfigure.MantleHooksMetricsAutoConfiguration;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A database outage, as a user and an operator see it: with PostgreSQL stopped, or behind
 * a port that accepts connections and never answers, every turn still ends promptly (the
 * store calls give up after {@code mantle.hooks.jdbc.query-timeout}, far below the
 * connection pool's 30 seconds) with its reply; approvals fail closed with a named reply
 * and run nothing; the transcript entries that could not be written are counted and
 * logged; once the database is back, writes resume and a batch that waited is approved.
 * Also: text with U+0000 is kept in the transcript exactly as sent.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreOutageTests {

	private static final String CONVERSATION = "c-outage";

	private static final String CANNOT = "I can't do that right now.";

	private static final String NOT_FOUND = "There is nothing waiting for approval.";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@AfterEach
	void stop() {
		this.openAi.close();
	}

	private ApplicationContextRunner contextRunner(String jdbcUrl) {
		return ChatTestSupport.contextRunner(this.openAi)
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, MantleHooksMetricsAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + jdbcUrl, "spring.datasource.username=postgres",
					"spring.datasource.password=postgres", "spring.sql.init.mode=never",
					"mantle.hooks.jdbc.initialize-schema=always", "mantle.hooks.jdbc.query-timeout=500ms",
					// ten minutes, longer than the tests' own time limit: a turn that
					// waited for a
					// connection, as turns did for each write before, never answers, so
					// a turn that answers during the outage shows it did not wait (no
					// wall-clock budget needed)
					"spring.datasource.hikari.connection-timeout=600000", "mantle.hooks.transcript.enabled=true",
					"mantle.hooks.approvals.tools=refund",
					"mantle.hooks.responses.utter_tool_call_hook_error=" + CANNOT,
					"mantle.hooks.responses.utter_approval_not_found=" + NOT_FOUND)
			.withBean(CountingRefundTools.class);
	}

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
	void postgresStoppedMidRunCostsTurnsNoMoreThanTheQueryTimeoutAndWritesResumeWhenItIsBack(@TempDir Path data,
			CapturedOutput output) throws Exception {
		int port = freePort();
		EmbeddedPostgres[] postgres = { postgres(port, data) };
		try {
			this.contextRunner(postgres[0].getJdbcUrl("postgres", "postgres"))
				.run((context) -> outage(context, output, () -> postgres[0].close(),
						() -> postgres[0] = postgres(port, data)));
		}
		finally {
			postgres[0].close();
		}
	}

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
	void aDatabaseThatAcceptsConnectionsAndNeverAnswersCostsTurnsNoMoreThanTheQueryTimeout(CapturedOutput output)
			throws Exception {
		try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
				HangingProxy proxy = new HangingProxy(postgres.getPort())) {
			this.contextRunner("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres")
				.run((context) -> outage(context, output, proxy::hang, proxy::forward));
		}
	}

	@Test
	void textWithNulCharactersIsKeptAsSentOnPostgres() throws Exception {
		try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
			this.contextRunner(postgres.getJdbcUrl("postgres", "postgres")).run(this::nulCharactersAreKept);
		}
	}

	@Test
	void textWithNulCharactersIsKeptAsSentOnH2() {
		this.contextRunner("jdbc:h2:mem:nul;DB_CLOSE_DELAY=-1")
			.withPropertyValues("spring.datasource.username=sa", "spring.datasource.password=")
			.run(this::nulCharactersAreKept);
	}

	private void nulCharactersAreKept(AssertableApplicationContext context) {
		this.openAi.reply(Reply.text("Noted: room\u0000 4."));
		String sent = "Ship it to\u0000 room 4 \u0001 please";
		assertThat(text(turn(context, sent, null))).isEqualTo("Noted: room\u0000 4.");
		assertThat(context.getBean(TranscriptStore.class).find(CONVERSATION)).extracting(TranscriptEntry::text)
			.containsExactly(sent, "Noted: room\u0000 4.");
	}

	/**
	 * One run through an outage: a healthy turn and a paused batch, the outage, turns
	 * during it, the database back.
	 */
	private void outage(AssertableApplicationContext context, CapturedOutput output, ThrowingRunnable down,
			ThrowingRunnable up) throws Exception {
		TranscriptStore transcript = context.getBean(TranscriptStore.class);
		CountingRefundTools tools = context.getBean(CountingRefundTools.class);

		this.openAi.reply(Reply.text("Hello."));
		assertThat(text(turn(context, "Hi", null))).isEqualTo("Hello.");
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "refund", "{\"order\":\"42\"}")));
		ChatClientResponse paused = turn(context, "Refund order 42", null);
		assertThat(paused.context()).containsEntry(MantleHooks.OUTCOME, "awaiting_approval");
		String approvalId = (String) paused.context().get(MantleHooks.APPROVAL_ID);
		assertThat(transcript.find(CONVERSATION)).hasSize(4);

		down.run();

		int turns = 8;
		for (int i = 0; i < turns; i++) {
			this.openAi.reply(Reply.text("Answer " + i + "."));
			assertThat(text(promptTurn(context, "Question " + i, null))).isEqualTo("Answer " + i + ".");
		}
		// approvals fail closed: the waiting batch cannot be claimed, a new one cannot be
		// stored; nothing runs and the user gets a named reply
		ChatClientResponse approving = promptTurn(context, "Yes, go ahead", approvalId);
		// the batch may still wait: "try again", not "it is gone"
		assertThat(approving.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
		assertThat(text(approving)).isEqualTo(CANNOT);
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_2", "refund", "{\"order\":\"43\"}")));
		ChatClientResponse pausing = promptTurn(context, "Refund order 43", null);
		assertThat(pausing.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
		assertThat(text(pausing)).isEqualTo(CANNOT);
		assertThat(tools.refunds).hasValue(0);
		// what could not be written is counted and logged, not lost silently
		MeterRegistry meters = new SimpleMeterRegistry();
		context.getBean("mantleTranscriptWriteMetrics", MeterBinder.class).bindTo(meters);
		int outageEntries = 2 * turns + 4;
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(
					() -> assertThat(meters.get(MantleHooksMetricsAutoConfiguration.TRANSCRIPT_WRITES_FAILED_METER)
						.functionCounter()
						.count()).isEqualTo(outageEntries));
		assertThat(output).contains("Could not write the user message of turn");
		CircuitBreaker breaker = context.getBean(CircuitBreakerRegistry.class)
			.circuitBreaker("mantle.store.transcript");
		assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
		// with the breaker open, a turn does not touch the database at all
		this.openAi.reply(Reply.text("Still here."));
		assertThat(text(promptTurn(context, "Still there?", null))).isEqualTo("Still here.");

		up.run();

		// writes resume once the breaker's probes find the database again
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
			transcript.find(CONVERSATION);
			return breaker.getState() == CircuitBreaker.State.CLOSED;
		});
		this.openAi.reply(Reply.text("Welcome back."));
		assertThat(text(turn(context, "Back?", null))).isEqualTo("Welcome back.");
		List<String> texts = transcript.find(CONVERSATION).stream().map(TranscriptEntry::text).toList();
		assertThat(texts).startsWith("Hi", "Hello.", "Refund order 42").endsWith("Back?", "Welcome back.");
		// the batch kept waiting through the outage and runs once approved
		this.openAi.reply(Reply.text("Order 42 is refunded."));
		assertThat(text(turn(context, "Yes, go ahead", approvalId))).isEqualTo("Order 42 is refunded.");
		assertThat(tools.refunds).hasValue(1);
	}

	/**
	 * A turn during the outage: that it answers at all shows it gave up on the store
	 * after the query timeout, since the pool would hold it past the test's time limit.
	 */
	private ChatClientResponse promptTurn(AssertableApplicationContext context, String text,
			@Nullable String approvalId) {
		return turn(context, text, approvalId);
	}

	private ChatClientResponse turn(AssertableApplicationContext context, String text, @Nullable String approvalId) {
		ChatClient.ChatClientRequestSpec spec = ChatTestSupport.chatClient(context)
			.prompt()
			.user(text)
			.tools(context.getBean(CountingRefundTools.class))
			.advisors((advisors) -> advisors.param(ChatMemory.CONVERSATION_ID, CONVERSATION))
			.advisors(MantleHooks.identity("customer-7", Channel.of("web")));
		if (approvalId != null) {
			spec = spec.advisors(MantleHooks.approve(approvalId));
		}
		return spec.call().chatClientResponse();
	}

	private static String text(ChatClientResponse response) {
		return response.chatResponse().getResult().getOutput().getText();
	}

	private static EmbeddedPostgres postgres(int port, Path data) throws IOException {
		return EmbeddedPostgres.builder().setPort(port).setDataDirectory(data).setCleanDataDirectory(false).start();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	interface ThrowingRunnable {

		void run() throws Exception;

	}

}
