package io.mantlehooks.ai;

import java.util.List;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.ai.chat.MantleChatClientCustomizer;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which advisors a {@code ChatClient} gets: none without hooks (the chain is Spring AI's
 * own), the turn advisor alone for hooks at the turn's edges, all three otherwise; also
 * for clients built while the application starts, before hooks are discovered.
 */
class ChatClientWiringTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void withoutHooksNoAdvisorIsAddedAndSpringAiRunsTheTools() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "weather", "{\"city\":\"Oslo\"}")),
				Reply.text("Cold in Oslo."));
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(MantleChatClientCustomizer.class).getAdvisors()).isEmpty();
			ChatTurnTests.WeatherTools tools = new ChatTurnTests.WeatherTools();
			ChatClientResponse response = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Weather?")
				.tools(tools)
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo("Cold in Oslo.");
			assertThat(tools.cities).containsExactly("Oslo");
			assertThat(response.context()).doesNotContainKey(MantleHooks.TURN_ID);
		});
	}

	@Test
	void hooksOnlyAtTheTurnsEdgesAddOnlyTheTurnAdvisor() {
		this.openAi.reply(Reply.text("Hi."));
		this.contextRunner.withBean("turnWatcher", TurnWatcher.class).run((context) -> {
			assertThat(advisorTypes(context.getBean(MantleChatClientCustomizer.class).getAdvisors()))
				.containsExactly("MantleTurnAdvisor");
			ChatClientResponse response = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Hi")
				.call()
				.chatClientResponse();
			assertThat(response.context()).containsKey(MantleHooks.TURN_ID);
		});
	}

	@Test
	void hooksOnTheModelCallAddAllThreeAdvisors() {
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class)
			.run((context) -> assertThat(advisorTypes(context.getBean(MantleChatClientCustomizer.class).getAdvisors()))
				.containsExactly("MantleTurnAdvisor", "MantleToolLoopAdvisor", "MantleModelCallAdvisor"));
	}

	@Test
	void chatClientBuiltWhileSingletonsAreCreatedRunsTheHooks() {
		this.openAi.reply(Reply.text("Early."));
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class)
			.withBean("earlyService", EarlyService.class)
			.run((context) -> {
				assertThat(context.getBean(EarlyService.class).ask("Hi")).isEqualTo("Early.");
				assertThat(ChatTurnTests.hooks(context).calls).containsExactly("incoming-message", "model-request#1",
						"model-response", "outgoing-text:Early.");
			});
	}

	@Test
	void hooksHiddenFromAnEarlyChatClientFailStartupWithTheFix() {
		this.contextRunner.withUserConfiguration(HiddenHooksConfiguration.class)
			.withBean("earlyService", EarlyService.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure())
					.hasMessageContaining("A ChatClient.Builder was configured while the application started")
					.hasMessageContaining("'hiddenHooks.incoming' (incoming-message)")
					.hasMessageContaining("'hiddenHooks.request' (model-request)");
			});
	}

	/** The advisors' class names: the advisors are package-private. */
	private static List<String> advisorTypes(List<Advisor> advisors) {
		return advisors.stream().map((advisor) -> advisor.getClass().getSimpleName()).toList();
	}

	static class TurnWatcher {

		@OnTurnStarted
		void started(TurnStartedPayload payload) {
		}

	}

	/**
	 * The usual service: builds its {@code ChatClient} in its constructor, while the
	 * application's singletons are still being created.
	 */
	static class EarlyService {

		private final ChatClient chatClient;

		EarlyService(ChatClient.Builder builder) {
			this.chatClient = builder.build();
		}

		String ask(String text) {
			return this.chatClient.prompt().user(text).call().content();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HiddenHooksConfiguration {

		// the declared type hides the hook class until the bean exists
		@Bean
		Object hiddenHooks() {
			return new ScriptedHooks();
		}

	}

}
