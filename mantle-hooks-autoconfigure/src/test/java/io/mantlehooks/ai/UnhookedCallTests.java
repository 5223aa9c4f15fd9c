package io.mantlehooks.ai;

import io.mantlehooks.UnhookedModelCallException;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.ScriptedChatModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code ChatClient} built without the hook advisors is never silent: a model call
 * outside a hooked turn is reported once per calling class, refused, or ignored, as
 * {@code mantle.hooks.unhooked-calls} says. OpenAI's chat model is a final class, so its
 * calls are seen through Spring AI's model observations (an application with an
 * {@code ObservationRegistry}, which the starter brings; without one the model is named
 * at startup); other models are wrapped by a class-preserving proxy.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnhookedCallTests {

	private static final String REPORT = "was called outside a hooked turn";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
		.withBean("scriptedHooks", ScriptedHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void handBuiltChatClientIsReportedOncePerCallingClassNamingTheFix(CapturedOutput output) {
		this.openAi.reply(Reply.text("one"), Reply.text("two"));
		this.contextRunner.run((context) -> {
			ChatClient handBuilt = ChatClient.create(context.getBean(ChatModel.class));
			assertThat(handBuilt.prompt().user("Hi").call().content()).isEqualTo("one");
			assertThat(handBuilt.prompt().user("Again").call().content()).isEqualTo("two");
			assertThat(ChatTurnTests.hooks(context).calls).isEmpty();
		});
		assertThat(output).containsOnlyOnce("ChatModel 'openai' " + REPORT + " from " + getClass().getName())
			.contains("Build the ChatClient from the auto-configured ChatClient.Builder")
			.contains("mantle.hooks.unhooked-calls=fail");
	}

	@Test
	void failPolicyRefusesTheCallBeforeTheProviderSeesIt() {
		this.contextRunner.withPropertyValues("mantle.hooks.unhooked-calls=fail").run((context) -> {
			ChatClient handBuilt = ChatClient.create(context.getBean(ChatModel.class));
			assertThatExceptionOfType(UnhookedModelCallException.class)
				.isThrownBy(() -> handBuilt.prompt().user("Hi").call().content())
				.withMessageContaining(REPORT)
				.withMessageContaining("The call was refused before the provider saw it")
				.withMessageContaining("Build the ChatClient from the auto-configured ChatClient.Builder")
				.withMessageNotContaining("Set mantle.hooks.unhooked-calls=fail");
			assertThat(this.openAi.requests()).isEmpty();
		});
	}

	@Test
	void withoutAnObservationRegistryTheModelThatCannotBeCheckedIsNamedAtStartup(CapturedOutput output) {
		// no ObservationAutoConfiguration: an application that removed Boot's
		// observation module
		ChatTestSupport.contextRunner(this.openAi)
			.withBean("scriptedHooks", ScriptedHooks.class)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.containsOnlyOnce("Calls outside a hooked turn to ChatModel openAiChatModel ("
					+ OpenAiChatModel.class.getName() + ") go unnoticed")
			.contains("mantle.hooks.unhooked-calls=warn cannot apply to them")
			.contains("spring-boot-micrometer-observation");
	}

	@Test
	void withARegistryWithoutHooksOrWithIgnoreNoModelIsNamedAtStartup(CapturedOutput output) {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed());
		ChatTestSupport.contextRunner(this.openAi).run((context) -> assertThat(context).hasNotFailed());
		ChatTestSupport.contextRunner(this.openAi)
			.withBean("scriptedHooks", ScriptedHooks.class)
			.withPropertyValues("mantle.hooks.unhooked-calls=ignore")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("go unnoticed");
	}

	@Test
	void ignorePolicyAndTheAutoConfiguredClientAreSilent(CapturedOutput output) {
		this.openAi.reply(Reply.text("hooked"), Reply.text("ignored"));
		this.contextRunner.withPropertyValues("mantle.hooks.unhooked-calls=ignore").run((context) -> {
			assertThat(ChatTestSupport.chatClient(context).prompt().user("Hi").call().content()).isEqualTo("hooked");
			assertThat(ChatClient.create(context.getBean(ChatModel.class)).prompt().user("Hi").call().content())
				.isEqualTo("ignored");
		});
		assertThat(output).doesNotContain(REPORT);
	}

	@Test
	void autoConfiguredClientIsNeverReported(CapturedOutput output) {
		this.openAi.reply(Reply.text("hooked"), Reply.text("streamed"));
		this.contextRunner.withPropertyValues("mantle.hooks.unhooked-calls=fail").run((context) -> {
			ChatClient chatClient = ChatTestSupport.chatClient(context);
			assertThat(chatClient.prompt().user("Hi").call().content()).isEqualTo("hooked");
			assertThat(String.join("", chatClient.prompt().user("Hi").stream().content().collectList().block()))
				.isEqualTo("streamed");
		});
		assertThat(output).doesNotContain(REPORT);
	}

	@Test
	void withoutHooksNothingIsReported(CapturedOutput output) {
		this.openAi.reply(Reply.text("plain"));
		ChatTestSupport.contextRunner(this.openAi)
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.withPropertyValues("mantle.hooks.unhooked-calls=fail")
			.run((context) -> assertThat(
					ChatClient.create(context.getBean(ChatModel.class)).prompt().user("Hi").call().content())
				.isEqualTo("plain"));
		assertThat(output).doesNotContain(REPORT);
	}

	private static ScriptedChatModel cannedModel() {
		return new ScriptedChatModel().otherwise((prompt) -> "canned");
	}

	@Test
	void modelOfANonFinalClassIsProxiedKeepingItsClassAndChecksCallsAndStreams(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withBean("cannedModel", ScriptedChatModel.class, UnhookedCallTests::cannedModel)
			.withBean("scriptedHooks", ScriptedHooks.class)
			.withPropertyValues("mantle.hooks.unhooked-calls=warn")
			.run((context) -> {
				ScriptedChatModel model = context.getBean(ScriptedChatModel.class);
				ChatClient handBuilt = ChatClient.create(model);
				assertThat(handBuilt.prompt().user("Hi").call().content()).isEqualTo("canned");
				assertThat(handBuilt.prompt().user("Hi").stream().content().collectList().block())
					.containsExactly("canned");
				assertThat(ChatTestSupport.chatClient(context).prompt().user("Hi").call().content())
					.isEqualTo("canned");
			});
		assertThat(output).containsOnlyOnce("ChatModel 'cannedModel' " + REPORT + " from " + getClass().getName());
	}

	@Test
	void streamsOfAProxiedModelAreRefusedWithTheFailPolicy() {
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withBean("cannedModel", ScriptedChatModel.class, UnhookedCallTests::cannedModel)
			.withBean("scriptedHooks", ScriptedHooks.class)
			.withPropertyValues("mantle.hooks.unhooked-calls=fail")
			.run((context) -> {
				Flux<String> stream = ChatClient.create(context.getBean(ChatModel.class))
					.prompt()
					.user("Hi")
					.stream()
					.content();
				assertThatExceptionOfType(UnhookedModelCallException.class).isThrownBy(stream::blockLast);
				assertThat(context.getBean(ScriptedChatModel.class).prompts()).isEmpty();
			});
	}

}
