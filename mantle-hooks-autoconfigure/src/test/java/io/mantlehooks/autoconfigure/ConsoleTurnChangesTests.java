package io.mantlehooks.autoconfigure;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.Channel;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.console.RecordedTurn;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.test.LoopbackOpenAiServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A console that polls {@code GET /actuator/mantlehooks/turns} gets only what changed:
 * with {@code changedSince} (the {@code version} of its last answer) the turns that are
 * new or changed since, and the ids of those that left the list; an unchanged list is a
 * few bytes. Without it the endpoint answers as before, with every turn. A version that
 * is no version of this list is refused with 400.
 */
class ConsoleTurnChangesTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final CountDownLatch gate = new CountDownLatch(1);

	@AfterEach
	void stop() {
		this.gate.countDown();
		this.openAi.close();
	}

	@Test
	void aPollWithTheListsVersionGetsOnlyTheTurnsNewOrChangedSince() throws Exception {
		this.openAi.text("It ships on Monday.").text("It is on its way.").text("Monday too.");
		try (ConfigurableApplicationContext app = start(200)) {
			Gate.of(app).latch = this.gate;
			JsonNode empty = turns(app, null);
			assertThat(empty.get("complete").asBoolean()).isTrue();
			assertThat(empty.get("turns")).isEmpty();
			String first = chat(app, "When does my parcel ship?");
			awaitFinished(app, first);

			JsonNode added = turns(app, empty.get("version").asString());
			assertThat(added.get("complete").asBoolean()).isFalse();
			assertThat(ids(added)).containsExactly(first);
			assertThat(added.get("removed")).isEmpty();
			// nothing changed: no turn, and a few bytes
			HttpResponse<String> unchanged = get(app, added.get("version").asString());
			assertThat(unchanged.statusCode()).isEqualTo(200);
			assertThat(ids(JSON.readTree(unchanged.body()))).isEmpty();
			assertThat(unchanged.body()).hasSizeLessThan(300);

			// a turn listed while it runs, and again when it has finished
			CompletableFuture<String> held = CompletableFuture.supplyAsync(() -> chat(app, "hold: where is it?"));
			String running = await().atMost(WAIT).until(() -> runningTurn(app), (id) -> id != null);
			JsonNode whileRunning = turns(app, added.get("version").asString());
			assertThat(ids(whileRunning)).containsExactly(running);
			assertThat(whileRunning.get("turns").get(0).get("outcome").asString()).isEqualTo("running");
			this.gate.countDown();
			assertThat(held.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(running);
			awaitFinished(app, running);
			JsonNode finished = turns(app, whileRunning.get("version").asString());
			assertThat(ids(finished)).containsExactly(running);
			assertThat(finished.get("turns").get(0).get("outcome").asString()).isEqualTo("completed");
			assertThat(finished.get("turns").get(0).get("hooks")).isNotEmpty();

			// and the list as before, for callers that do not ask for changes
			JsonNode whole = turns(app, null);
			assertThat(whole.get("complete").asBoolean()).isTrue();
			assertThat(ids(whole)).containsExactly(running, first);
		}
	}

	@Test
	void turnsThatLeaveTheListAreNamedInRemoved() throws Exception {
		this.openAi.text("One.").text("Two.").text("Three.");
		try (ConfigurableApplicationContext app = start(2)) {
			String first = chat(app, "one");
			awaitFinished(app, first);
			JsonNode before = turns(app, null);
			String second = chat(app, "two");
			String third = chat(app, "three");
			awaitFinished(app, second, third);

			JsonNode changes = turns(app, before.get("version").asString());
			assertThat(changes.get("complete").asBoolean()).isFalse();
			assertThat(ids(changes)).containsExactlyInAnyOrder(second, third);
			assertThat(changes.get("removed")).extracting(JsonNode::asString).containsExactly(first);
		}
	}

	@Test
	void aVersionOfAnotherRunGetsTheWholeList() throws Exception {
		this.openAi.text("It ships on Monday.");
		try (ConfigurableApplicationContext app = start(200)) {
			String turn = chat(app, "When does my parcel ship?");
			awaitFinished(app, turn);
			// the application restarted since the page's last poll (or another instance
			// answers): its versions mean nothing here
			JsonNode whole = turns(app, "0123abcd.7");
			assertThat(whole.get("complete").asBoolean()).isTrue();
			assertThat(ids(whole)).containsExactly(turn);
		}
	}

	@Test
	void aValueThatIsNoVersionOfTheListIsRefusedWith400() throws Exception {
		try (ConfigurableApplicationContext app = start(200)) {
			String version = turns(app, null).get("version").asString();
			String epoch = version.substring(0, version.indexOf('.'));
			for (String bad : List.of("", "yesterday", "2026-01-01T00:00:00Z", "42", epoch + ".", epoch + ".x",
					epoch + ".-1", epoch + ".99999999999999999999", epoch + ".1000000", "." + "1")) {
				assertThat(get(app, bad).statusCode()).as(bad).isEqualTo(400);
			}
		}
	}

	private ConfigurableApplicationContext start(int maxTurns) {
		return ConsoleServer.application(HeldApplication.class)
			.properties(this.openAi.springProperties())
			.properties("spring.ai.model.chat=openai", "mantle.hooks.console.max-turns=" + maxTurns,
					"mantle.hooks.timeouts.modify=10m", "mantle.hooks.timeouts.observe=60s")
			.run();
	}

	private static String chat(ConfigurableApplicationContext app, String message) {
		return (String) app.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(message)
			.advisors(MantleHooks.identity("u-1", Channel.of("web")))
			.call()
			.chatClientResponse()
			.context()
			.get(MantleHooks.TURN_ID);
	}

	private static String runningTurn(ConfigurableApplicationContext app) {
		return app.getBean(TurnConsole.class)
			.turns()
			.turns()
			.stream()
			.filter((turn) -> turn.outcome().equals("running"))
			.map(RecordedTurn::id)
			.findFirst()
			.orElse(null);
	}

	private static void awaitFinished(ConfigurableApplicationContext app, String... turnIds) {
		TurnConsole console = app.getBean(TurnConsole.class);
		for (String turnId : turnIds) {
			await().atMost(WAIT)
				.until(() -> console.turn(turnId)
					.map((detail) -> !detail.turn().outcome().equals("running"))
					.orElse(false));
		}
	}

	private static JsonNode turns(ConfigurableApplicationContext app, String changedSince) throws Exception {
		HttpResponse<String> response = get(app, changedSince);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return JSON.readTree(response.body());
	}

	private static HttpResponse<String> get(ConfigurableApplicationContext app, String changedSince) throws Exception {
		String port = app.getEnvironment().getProperty("local.server.port");
		String query = (changedSince != null)
				? "?changedSince=" + URLEncoder.encode(changedSince, StandardCharsets.UTF_8) : "";
		return ConsoleServer.get(port, "/actuator/mantlehooks/turns" + query);
	}

	private static List<String> ids(JsonNode turns) {
		List<String> ids = new ArrayList<>();
		turns.get("turns").forEach((turn) -> ids.add(turn.get("id").asString()));
		return ids;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class HeldApplication {

		@Bean
		Gate gate() {
			return new Gate();
		}

	}

	/** Holds a message that asks for it until the test opens the gate. */
	static class Gate {

		volatile CountDownLatch latch = new CountDownLatch(0);

		static Gate of(ConfigurableApplicationContext app) {
			return app.getBean(Gate.class);
		}

		@ModifyIncomingMessage
		IncomingMessagePayload hold(IncomingMessagePayload message) throws InterruptedException {
			if (message.text().startsWith("hold:")) {
				this.latch.await(10, TimeUnit.MINUTES);
			}
			return message;
		}

	}

}
