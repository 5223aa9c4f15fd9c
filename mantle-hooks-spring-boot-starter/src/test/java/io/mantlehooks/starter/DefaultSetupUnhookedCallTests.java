package io.mantlehooks.starter;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ai.model.UnhookedModelCallException;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
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

	private ConfigurableApplicationContext application(String... properties) {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
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
