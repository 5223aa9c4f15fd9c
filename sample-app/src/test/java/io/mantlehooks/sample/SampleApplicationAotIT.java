package io.mantlehooks.sample;

import java.net.CookieManager;
import java.net.http.HttpClient;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample built by {@code spring-boot:process-aot} and started in AOT mode on the JVM
 * ({@code -Dspring.aot.enabled=true}, set by the failsafe plugin): the context comes from
 * the generated initializer, and the hooks still run at every point of a turn, each agent
 * its own ({@code shop} and the {@code copywriter} sub-agent). The class path is the
 * sample's own, without the Spring Security the browser tests add.
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationAotIT {

	@Test
	void hooksRunInTheAotBuiltApplication(CapturedOutput output) throws Exception {
		assertThat(AotDetector.useGeneratedArtifacts()).as("AOT mode").isTrue();
		assertThat(Class.forName(SampleApplication.class.getName() + "__ApplicationContextInitializer")).isNotNull();
		assertThat(getClass().getClassLoader().getResource("META-INF/mantle-hooks/bytecode-checks.properties"))
			.as("bytecode check recorded by the AOT build")
			.isNotNull();
		SpringApplication application = new SpringApplication(SampleApplication.class);
		// AOT mode finds the generated initializer by the main class
		application.setMainApplicationClass(SampleApplication.class);
		try (ConfigurableApplicationContext context = application.run("--server.port=0",
				"--server.address=127.0.0.1")) {
			// keeps the session cookie: the conversation belongs to this client's session
			RestClient http = RestClient.builder()
				.baseUrl("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"))
				.requestFactory(new JdkClientHttpRequestFactory(
						HttpClient.newBuilder().cookieHandler(new CookieManager()).build()))
				.build();
			Map<String, Object> lookup = chat(http, "Where is order 42?");
			assertThat(lookup).containsEntry("reply", "Order A-42 shipped on 2026-11-28 to [email], tracking 1Z999.");
			Map<String, Object> pii = chat(http, "My card is 4111 1111 1111 1111");
			assertThat(pii).containsEntry("reply", "You said: My card is [card]");
			// the copywriter, a sub-agent called from a shop tool, runs its own
			// agent-scoped hook (the sign-off) and not the shop's redaction (the code)
			Map<String, Object> giftNote = chat(http, "Write a gift note for order 7 to Grandma");
			assertThat(giftNote).containsEntry("outcome", "completed")
				.containsEntry("reply",
						"Gift note for order A-7: Dear Grandma, a little something is on its way to you with order "
								+ "A-7. Your gift card code is 6035 7700 4242 4242. "
								+ "Warm wishes from all of us at Mantle Shop!");
			Map<String, Object> pitch = chat(http, "Buy crypto");
			assertThat(pitch).containsEntry("outcome", "rejected");
			// the console page without Spring Security on the class path: no token to
			// hand over
			assertThat(ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken", null)).isFalse();
			assertThat(http.get().uri("/mantle-console").retrieve().body(String.class))
				.contains("data-csrf-header=\"\" data-csrf-token=\"\"");
		}
		assertThat(output)
			.contains("Hook point incoming-message: modify hook 'guardHooks.vetoSalesPitches', 1 observer")
			.contains("Hook point model-request: modify hook none, 1 observer")
			.contains("Hook point model-request in agent 'shop': modify hook 'guardHooks.redactPersonalData', "
					+ "1 observer")
			.contains("Hook point model-request in agent 'copywriter': modify hook 'copywriterHooks.signOff', "
					+ "1 observer");
	}

	private static Map<String, Object> chat(RestClient http, String message) {
		return http.post()
			.uri("/api/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("conversationId", "aot", "message", message))
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
	}

}
