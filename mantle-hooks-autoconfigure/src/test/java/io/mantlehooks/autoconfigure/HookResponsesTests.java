package io.mantlehooks.autoconfigure;

import java.io.IOException;
import java.util.Locale;

import io.mantlehooks.runtime.HookResponses;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Named replies as users write them: in YAML or properties, bracketed or not, in the
 * {@code MessageSource}, or not at all.
 */
class HookResponsesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class));

	@Test
	void namesBindFromYamlWithAndWithoutBrackets() {
		this.contextRunner.withInitializer((context) -> load(context, new YamlPropertySourceLoader(), "responses.yml"))
			.run((context) -> assertNamedRepliesResolve(context.getBean(HookResponses.class)));
	}

	@Test
	void namesBindFromPropertiesWithAndWithoutBrackets() {
		this.contextRunner
			.withInitializer((context) -> load(context, new PropertiesPropertySourceLoader(), "responses.properties"))
			.run((context) -> assertNamedRepliesResolve(context.getBean(HookResponses.class)));
	}

	private static void assertNamedRepliesResolve(HookResponses responses) {
		assertThat(responses.resolve("utter_spam_rejected", HookResponses.INCOMING_MESSAGE_REJECTED))
			.isEqualTo("Sorry, I can't help with spam.");
		assertThat(responses.resolve("utter_rude_rejected", HookResponses.INCOMING_MESSAGE_REJECTED))
			.isEqualTo("Let's keep it friendly.");
	}

	@Test
	void unknownOrMissingNameUsesThePackagedFallback() {
		this.contextRunner.run((context) -> {
			HookResponses responses = context.getBean(HookResponses.class);
			assertThat(responses.resolve("utter_unknown", HookResponses.INCOMING_MESSAGE_REJECTED))
				.isEqualTo("Sorry, I can't help with that request.");
			assertThat(responses.resolve(null, HookResponses.TOOL_CALL_HOOK_ERROR))
				.isEqualTo("Sorry, I couldn't complete that action. Please try again.");
			assertThat(responses.resolve(null, HookResponses.MAX_ITERATIONS_REACHED)).doesNotStartWith("utter_");
		});
	}

	@Test
	void packagedFallbackCanBeOverridden() {
		this.contextRunner.withPropertyValues("mantle.hooks.responses.utter_incoming_message_rejected=Nope.")
			.run((context) -> assertThat(context.getBean(HookResponses.class)
				.resolve("utter_unknown", HookResponses.INCOMING_MESSAGE_REJECTED)).isEqualTo("Nope."));
	}

	@Test
	void messageSourceIsConsultedAfterTheConfiguration() {
		this.contextRunner.withBean("messageSource", ResourceBundleMessageSource.class, () -> {
			ResourceBundleMessageSource messageSource = new ResourceBundleMessageSource();
			messageSource.setBasename("io/mantlehooks/autoconfigure/messages");
			messageSource.setUseCodeAsDefaultMessage(true);
			return messageSource;
		}).run((context) -> {
			HookResponses responses = context.getBean(HookResponses.class);
			LocaleContextHolder.setLocale(Locale.ENGLISH);
			try {
				assertThat(responses.resolve("utter_from_messages", HookResponses.INCOMING_MESSAGE_REJECTED))
					.isEqualTo("Message source says hello.");
				assertThat(responses.resolve(null, HookResponses.OUTGOING_TEXT_REJECTED))
					.isEqualTo("I can't share that, sorry.");
				// useCodeAsDefaultMessage answers with the raw name; that must not
				// reach users
				assertThat(responses.resolve("utter_nowhere", HookResponses.INCOMING_MESSAGE_REJECTED))
					.isEqualTo("Sorry, I can't help with that request.");
			}
			finally {
				LocaleContextHolder.resetLocaleContext();
			}
		});
	}

	@Test
	void freeFormResponseNameNeverReachesTheUserEvenWhenTheMessageSourceEchoesCodes() {
		this.contextRunner.withBean("messageSource", ResourceBundleMessageSource.class, () -> {
			ResourceBundleMessageSource messageSource = new ResourceBundleMessageSource();
			messageSource.setBasename("io/mantlehooks/autoconfigure/messages");
			messageSource.setUseCodeAsDefaultMessage(true);
			return messageSource;
		}).run((context) -> {
			HookResponses responses = context.getBean(HookResponses.class);
			// a hook that passes free text as the response name: only a real lookup hit
			// counts, so the packaged reply goes out instead of the hook's text
			assertThat(responses.resolve("Your card 4111 was declined, call 555-0100",
					HookResponses.INCOMING_MESSAGE_REJECTED))
				.isEqualTo("Sorry, I can't help with that request.");
			assertThat(responses.resolve("Ask a human.", HookResponses.OUTGOING_TEXT_REJECTED))
				.isEqualTo("I can't share that, sorry.");
		});
	}

	private static void load(ConfigurableApplicationContext context, PropertySourceLoader loader, String name) {
		try {
			for (PropertySource<?> source : loader.load(name, new ClassPathResource(name, HookResponsesTests.class))) {
				context.getEnvironment().getPropertySources().addFirst(source);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
