package io.mantlehooks.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.annotation.OnTurnFinished;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link HookActivity} in a whole-turn test: a turn answers before its observers have
 * run, and the test waits for them instead of sleeping.
 */
@SpringBootTest(classes = HookActivityTests.App.class)
class HookActivityTests {

	static final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@DynamicPropertySource
	static void openAi(DynamicPropertyRegistry registry) {
		openAi.registerProperties(registry);
	}

	@AfterAll
	static void stopServer() {
		openAi.close();
	}

	@Autowired
	ApplicationContext context;

	@Autowired
	ChatClient.Builder chatClients;

	@Autowired
	SlowAudit audit;

	@BeforeEach
	void holdObservers() {
		this.audit.seen.clear();
		this.audit.release = new CountDownLatch(1);
	}

	@Test
	void awaitObserversReturnsOnceTheTurnsObserversHaveRun() {
		openAi.text("Parcels ship in 2 days.");
		try {
			String reply = this.chatClients.build().prompt().user("When does my parcel ship?").call().content();
			assertThat(reply).isEqualTo("Parcels ship in 2 days.");
			// the turn has answered; its observers are still held by the latch
			assertThat(this.audit.seen).isEmpty();
			assertObserversAwaited();
		}
		finally {
			this.audit.release.countDown();
		}
	}

	@Test
	void aStreamedTurnHasStartedAllItsObserversWhenTheCallerSeesItsEnd() {
		openAi.text("Parcels ship in 2 days.");
		try {
			List<String> chunks = this.chatClients.build()
				.prompt()
				.user("When does my parcel ship?")
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", chunks)).isEqualTo("Parcels ship in 2 days.");
			// both observers, the turn-finished one included, were started before the end
			assertObserversAwaited();
		}
		finally {
			this.audit.release.countDown();
		}
	}

	/**
	 * The turn's two observers are held by the latch: waiting fails while they are, and
	 * returns once they have recorded.
	 */
	private void assertObserversAwaited() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> HookActivity.awaitObservers(this.context, Duration.ofMillis(50)))
			.withMessageContaining("2 invocation(s) in flight");
		this.audit.release.countDown();
		HookActivity.awaitObservers(this.context, Duration.ofSeconds(30));
		assertThat(this.audit.seen).containsExactlyInAnyOrder("outgoing: Parcels ship in 2 days.",
				"finished: COMPLETED");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		SlowAudit slowAudit() {
			return new SlowAudit();
		}

	}

	/**
	 * Observers that record only once the test lets them go, well within their timeout.
	 */
	static class SlowAudit {

		volatile CountDownLatch release = new CountDownLatch(1);

		final List<String> seen = new CopyOnWriteArrayList<>();

		@OnOutgoingText(timeoutMs = 60_000)
		void outgoing(OutgoingTextPayload payload) throws InterruptedException {
			this.release.await(60, TimeUnit.SECONDS);
			this.seen.add("outgoing: " + payload.text());
		}

		@OnTurnFinished(timeoutMs = 60_000)
		void finished(TurnFinishedPayload payload) throws InterruptedException {
			this.release.await(60, TimeUnit.SECONDS);
			this.seen.add("finished: " + payload.status());
		}

	}

}
