package io.mantlehooks.autoconfigure;

import java.net.http.HttpResponse;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.test.ScriptedChatModel;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Actuator on a port of its own, the turn console page is served there, next to the
 * endpoint it reads, and not on the application's port.
 */
class ConsoleManagementPortTests {

	@Test
	void thePageIsServedOnTheManagementPortNextToItsEndpoint() throws Exception {
		try (ConfigurableApplicationContext app = start("management.server.port=0",
				"management.server.address=127.0.0.1")) {
			String turnId = turn(app);
			String management = app.getEnvironment().getProperty("local.management.port");
			String server = app.getEnvironment().getProperty("local.server.port");
			assertThat(management).isNotEqualTo(server);

			HttpResponse<String> page = ConsoleServer.get(management, "/mantle-console");
			assertThat(page.statusCode()).isEqualTo(200);
			assertThat(page.body()).contains("data-endpoint=\"/actuator/mantlehooks\"")
				.contains("href=\"/mantle-console/console.css\"");
			assertThat(ConsoleServer.get(management, "/mantle-console/console.js").statusCode()).isEqualTo(200);
			assertThat(ConsoleServer.get(management, "/actuator/mantlehooks/turns").body()).contains(turnId);

			assertThat(ConsoleServer.get(server, "/mantle-console").statusCode()).as("not on the application's port")
				.isEqualTo(404);
			// the management server's own endpoints are still there
			assertThat(ConsoleServer.get(management, "/actuator/health").statusCode()).isEqualTo(200);
		}
	}

	@Test
	void theManagementBasePathPrefixesThePageAndTheEndpoint() throws Exception {
		try (ConfigurableApplicationContext app = start("management.server.port=0",
				"management.server.address=127.0.0.1", "management.server.base-path=/manage",
				"mantle.hooks.console.path=/turns-ui")) {
			String management = app.getEnvironment().getProperty("local.management.port");
			HttpResponse<String> page = ConsoleServer.get(management, "/manage/turns-ui");
			assertThat(page.statusCode()).isEqualTo(200);
			assertThat(page.body()).contains("data-endpoint=\"/manage/actuator/mantlehooks\"")
				.contains("href=\"/manage/turns-ui/console.css\"");
			assertThat(ConsoleServer.get(management, "/manage/turns-ui/console.css").statusCode()).isEqualTo(200);
		}
	}

	@Test
	void onTheSamePortThePageIsServedWithTheApplication() throws Exception {
		try (ConfigurableApplicationContext app = start()) {
			String server = app.getEnvironment().getProperty("local.server.port");
			HttpResponse<String> page = ConsoleServer.get(server, "/mantle-console");
			assertThat(page.statusCode()).isEqualTo(200);
			assertThat(page.body()).contains("data-endpoint=\"/actuator/mantlehooks\"");
		}
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return ConsoleServer.application(ConsoleApplication.class).properties(properties).run();
	}

	private static String turn(ConfigurableApplicationContext app) {
		return (String) app.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("Hi")
			.call()
			.chatClientResponse()
			.context()
			.get(MantleHooks.TURN_ID);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ConsoleApplication {

		@Bean
		ScriptedChatModel chatModel() {
			return new ScriptedChatModel().otherwise((prompt) -> "Hello");
		}

		@Bean
		PassOn passOn() {
			return new PassOn();
		}

	}

	static class PassOn {

		@ModifyModelRequest
		ModelRequestPayload passOn(ModelRequestPayload request) {
			return request;
		}

	}

}
