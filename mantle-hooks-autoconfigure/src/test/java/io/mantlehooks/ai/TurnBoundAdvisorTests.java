package io.mantlehooks.ai;

import java.time.Duration;

import io.mantlehooks.Channel;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A Spring AI {@code BaseAdvisor} that fails in a streamed turn fails it exactly as it
 * fails a plain Spring AI stream, though the hooked turn runs it with the turn current;
 * the turn finishes once, with {@code ERROR}.
 */
class TurnBoundAdvisorTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner plain = ChatTestSupport.contextRunner(this.openAi);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "exception", "error" })
	void aFailingAdvisorFailsTheStreamAsInPlainSpringAi(String failure) {
		Throwable[] plainFailure = new Throwable[1];
		this.plain.run((context) -> plainFailure[0] = streamWith(context, new Failing(failure)));
		this.plain.withBean("edgeHooks", TurnDriversTests.EdgeHooks.class).run((context) -> {
			Throwable hooked = streamWith(context, new Failing(failure));
			assertThat(hooked).isNotNull().hasSameClassAs(plainFailure[0]);
			assertThat(hooked.getMessage()).isEqualTo(plainFailure[0].getMessage());
			assertThat(hooked.getCause()).hasSameClassAs(plainFailure[0].getCause())
				.hasMessage(plainFailure[0].getCause().getMessage());
			TurnDriversTests.EdgeHooks hooks = context.getBean(TurnDriversTests.EdgeHooks.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> !hooks.finished.isEmpty());
			assertThat(hooks.finished.values()).containsExactly(TurnStatus.ERROR);
		});
	}

	private Throwable streamWith(AssertableApplicationContext context, BaseAdvisor advisor) {
		this.openAi.reply(Reply.text("never sent"));
		Throwable thrown = catchThrowable(() -> ChatTestSupport.chatClient(context)
			.prompt()
			.user("hi")
			.advisors(advisor)
			.advisors(MantleHooks.identity("user-1", Channel.of("web")))
			.stream()
			.content()
			.collectList()
			.block(Duration.ofSeconds(60)));
		// the advisor failed before the model was asked
		assertThat(this.openAi.requests()).isEmpty();
		this.openAi.clear();
		return thrown;
	}

	/** An advisor whose {@code before} fails, as a broken RAG advisor would. */
	static final class Failing implements BaseAdvisor {

		private final String failure;

		Failing(String failure) {
			this.failure = failure;
		}

		@Override
		public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
			if (this.failure.equals("error")) {
				throw new AssertionError("broken advisor");
			}
			throw new IllegalArgumentException("broken advisor");
		}

		@Override
		public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
			return response;
		}

		@Override
		public int getOrder() {
			return 0;
		}

	}

}
