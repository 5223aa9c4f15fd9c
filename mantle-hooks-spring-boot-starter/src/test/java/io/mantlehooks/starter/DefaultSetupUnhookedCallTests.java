package io.mantlehooks.starter;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.UnhookedModelCallException;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.observation.ChatModelObservationContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The default setup: an application with this starter and Spring AI's OpenAI starter and
 * nothing else (no Actuator), all auto-configurations from the class path as
 * {@code @SpringBootApplication} loads them. OpenAI's chat model is a final class, seen
 * only through Spring AI's model observations; the starter brings Boot's observation
 * module, so a hand-built {@code ChatClient} is reported or refused here too.
 */
@ExtendWith(OutputCaptureExtension.class)
class DefaultSetupUnhookedCallTests {

	private static final String REPORT = "was called outside a hooked turn";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	@BeforeEach
	void classPathHasNoActuator() {
		assertThat(ClassUtils.isPresent("org.springframework.boot.actuate.endpoint.annotation.Endpoint", null))
			.as("this test stands for an application without Spring Boot Actuator")
			.isFalse();
	}

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void handBuiltChatClientIsReportedNamingTheCaller(CapturedOutput output) {
		this.openAi.reply(Reply.text("raw"), Reply.text("hooked"));
		try (ConfigurableApplicationContext context = application()) {
			ChatClient handBuilt = ChatClient.create(context.getBean(OpenAiChatModel.class));
			assertThat(handBuilt.prompt().user("Hi").call().content()).isEqualTo("raw");
			assertThat(context.getBean(AuditHook.class).messages).isEmpty();
			ChatClient hooked = context.getBean(ChatClient.Builder.class).build();
			assertThat(hooked.prompt().user("Hello").call().content()).isEqualTo("hooked");
			assertThat(context.getBean(AuditHook.class).messages).containsExactly("Hello");
		}
		assertThat(output).containsOnlyOnce("ChatModel 'openai' " + REPORT + " from " + getClass().getName());
	}

	@Test
	void failPolicyRefusesCallsAndStreamsBeforeTheProviderSeesThem() {
		try (ConfigurableApplicationContext context = application("mantle.hooks.unhooked-calls=fail")) {
			ChatClient handBuilt = ChatClient.create(context.getBean(OpenAiChatModel.class));
			assertThatExceptionOfType(UnhookedModelCallException.class)
				.isThrownBy(() -> handBuilt.prompt().user("Hi").call().content())
				.withMessageContaining(REPORT);
			assertThatExceptionOfType(UnhookedModelCallException.class)
				.isThrownBy(() -> handBuilt.prompt().user("Hi").stream().content().blockLast())
				.withMessageContaining(REPORT);
			assertThat(this.openAi.requests()).isEmpty();
		}
	}

	@Test
	void whenNothingElseListensOnlyTheModelsObservationsAreMade() {
		this.openAi.reply(Reply.text("hooked"));
		try (ConfigurableApplicationContext context = application()) {
			ObservationRegistry registry = context.getBean(ObservationRegistry.class);
			assertThat(context.getBean(ChatClient.Builder.class).build().prompt().user("Hello").call().content())
				.isEqualTo("hooked");
			assertThat(observed("mantle.turn", new TurnObservationContext("t-1", "default"), registry)).isFalse();
			assertThat(observed("spring.ai.chat.client", new Observation.Context(), registry)).isFalse();
			ChatModelObservationContext modelCall = ChatModelObservationContext.builder()
				.prompt(new Prompt("Hi"))
				.provider("openai")
				.build();
			assertThat(observed("gen_ai.client.operation", modelCall, registry)).isTrue();
		}
	}

	@Test
	void anApplicationsOwnHandlerStillSeesEveryObservationOfATurn() {
		this.openAi.reply(Reply.text("hooked"));
		try (ConfigurableApplicationContext context = application(Application.class, ObservedApplication.class)) {
			ChatClient hooked = context.getBean(ChatClient.Builder.class).build();
			assertThat(hooked.prompt().user("Hello").call().content()).isEqualTo("hooked");
			assertThat(context.getBean(RecordingHandler.class).names).contains("mantle.turn", "mantle.hook",
					"spring.ai.chat.client", "spring.ai.advisor", "gen_ai.client.operation");
		}
	}

	private static boolean observed(String name, Observation.Context context, ObservationRegistry registry) {
		return !Observation.createNotStarted(name, () -> context, registry).isNoop();
	}

	private ConfigurableApplicationContext application(String... properties) {
		return application(new Class<?>[] { Application.class }, properties);
	}

	private ConfigurableApplicationContext application(Class<?> first, Class<?> second) {
		return application(new Class<?>[] { first, second });
	}

	private ConfigurableApplicationContext application(Class<?>[] sources, String... properties) {
		return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.properties(this.openAi.springProperties())
			.properties(properties)
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		AuditHook auditHook() {
			return new AuditHook();
		}

	}

	/**
	 * An application that observes: its own handler, as a bean.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ObservedApplication {

		@Bean
		RecordingHandler recordingHandler() {
			return new RecordingHandler();
		}

	}

	/**
	 * Records the name of every observation it sees.
	 */
	static class RecordingHandler implements ObservationHandler<Observation.Context> {

		final List<String> names = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(Observation.Context context) {
			this.names.add(context.getName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	/**
	 * The application's one hook: it records the messages of hooked turns.
	 */
	static class AuditHook {

		final List<String> messages = new CopyOnWriteArrayList<>();

		@ModifyIncomingMessage
		IncomingMessagePayload incoming(IncomingMessagePayload payload) {
			this.messages.add(payload.text());
			return payload;
		}

	}

}
