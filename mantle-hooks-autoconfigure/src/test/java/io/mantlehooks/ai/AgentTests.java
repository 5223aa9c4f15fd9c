package io.mantlehooks.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.autoconfigure.MantleHooksEndpoint;
import io.mantlehooks.autoconfigure.MantleHooksEndpointAutoConfiguration;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Hooks per agent: a {@code ChatClient} that names its agent runs that agent's hooks and
 * the hooks of every agent; a client that names none runs only the latter; a sub-agent
 * called from a tool runs its own agent's hooks inside the enclosing turn.
 */
@ExtendWith(OutputCaptureExtension.class)
class AgentTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("supportHooks", SupportHooks.class)
		.withBean("billingHooks", BillingHooks.class)
		.withBean("everyAgentHooks", EveryAgentHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void aClientRunsItsAgentsHooksAndAClientWithoutAgentRunsOnlyTheHooksOfEveryAgent() {
		this.openAi.reply(Reply.text("Support answer."), Reply.text("Plain answer."));
		this.contextRunner.run((context) -> {
			ChatClient support = client(context, "support");
			ChatClientResponse supported = support.prompt().user("my card is 4111").call().chatClientResponse();
			ChatClientResponse plain = ChatTestSupport.chatClient(context)
				.prompt()
				.user("my card is 4111")
				.call()
				.chatClientResponse();
			// what the model was sent: support's redaction and house rule, the incoming
			// trim of every agent in both
			assertThat(this.openAi.messages(0)).containsExactly("system: Answer as support.",
					"user: my card is [card]");
			assertThat(this.openAi.messages(1)).containsExactly("user: my card is 4111");
			assertThat(supported.context()).containsEntry(MantleHooks.AGENT, "support");
			assertThat(plain.context()).containsEntry(MantleHooks.AGENT, MantleHooks.DEFAULT_AGENT);
			EveryAgentHooks every = context.getBean(EveryAgentHooks.class);
			SupportHooks supportHooks = context.getBean(SupportHooks.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> every.requests.size() == 2);
			assertThat(supportHooks.started).hasSize(1);
			assertThat(context.getBean(BillingHooks.class).events).isEmpty();
		});
	}

	@Test
	void anAgentNoHookNamesRunsTheHooksOfEveryAgentAndIsLoggedOnce(CapturedOutput output) {
		this.openAi.reply(Reply.text("One."), Reply.text("Two."));
		this.contextRunner.run((context) -> {
			ChatClient typo = client(context, "suport");
			typo.prompt().user("my card is 4111").call().content();
			typo.prompt().user("my card is 4111").call().content();
			assertThat(this.openAi.messages(0)).containsExactly("user: my card is 4111");
			assertThat(context.getBean(EveryAgentHooks.class).incoming).hasSize(2);
		});
		assertThat(output).containsOnlyOnce("Agent 'suport' is named by a ChatClient but by no @ForAgent hook");
	}

	@Test
	void aSubAgentCalledFromAToolRunsItsOwnAgentsHooksInTheEnclosingTurn() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "invoice", "{\"order\":\"42\"}")),
				Reply.text("Invoice 42: 30 EUR."), Reply.text("Your invoice: 30 EUR."));
		this.contextRunner.run((context) -> {
			SubAgentTools tools = new SubAgentTools(client(context, "billing"));
			ChatClientResponse response = client(context, "support").prompt()
				.user("invoice for order 42")
				.tools(tools)
				.call()
				.chatClientResponse();
			assertThat(response.chatResponse().getResult().getOutput().getText()).isEqualTo("YOUR INVOICE: 30 EUR.");
			// the sub-agent's request got billing's rule, not support's
			assertThat(this.openAi.messages(1)).containsExactly("system: Answer as billing.", "user: order 42");
			assertThat(this.openAi.messages(2)).startsWith("system: Answer as support.")
				// a nested reply reaches no user: support's outgoing-text hook left it
				.contains("tool: \"Invoice 42: 30 EUR.\"");
			assertThat(tools.contexts).singleElement().satisfies((nested) -> {
				assertThat(nested).containsEntry(MantleHooks.AGENT, "billing");
				assertThat(nested).containsEntry(MantleHooks.TURN_ID, response.context().get(MantleHooks.TURN_ID));
			});
			BillingHooks billing = context.getBean(BillingHooks.class);
			assertThat(billing.events).containsExactly("request:order 42");
			// support's tool hook saw its own batch; billing's sub-agent called no tool
			await().atMost(Duration.ofSeconds(60))
				.until(() -> context.getBean(SupportHooks.class).toolCalls.size() == 1);
			// a nested call is part of the turn: no second turn started
			assertThat(context.getBean(SupportHooks.class).started).hasSize(1);
		});
	}

	@Test
	void aSubAgentWhoseClientNamesNoAgentRunsTheEnclosingTurnsAgent() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "invoice", "{\"order\":\"42\"}")),
				Reply.text("Invoice 42."), Reply.text("Done."));
		this.contextRunner.run((context) -> {
			SubAgentTools tools = new SubAgentTools(ChatTestSupport.chatClient(context));
			client(context, "support").prompt().user("invoice for order 42").tools(tools).call().content();
			assertThat(this.openAi.messages(1)).containsExactly("system: Answer as support.", "user: order 42");
			assertThat(tools.contexts).singleElement()
				.satisfies((nested) -> assertThat(nested).containsEntry(MantleHooks.AGENT, "support"));
		});
	}

	@Test
	void aStreamedReplyIsRewrittenSentenceBySentenceOnlyForTheAgentWhoseHookOptedIn() {
		this.openAi.reply(Reply.text("Hello there. How can I help?"), Reply.text("Hello there. How can I help?"));
		this.contextRunner.run((context) -> {
			List<String> supported = client(context, "support").prompt()
				.user("hi")
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			List<String> plain = ChatTestSupport.chatClient(context)
				.prompt()
				.user("hi")
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", supported)).isEqualTo("HELLO THERE. HOW CAN I HELP?");
			assertThat(String.join("", plain)).isEqualTo("Hello there. How can I help?");
		});
	}

	@Test
	void turnAndHookObservationsCarryTheAgent() {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		this.openAi.reply(Reply.text("Support answer."), Reply.text("Plain answer."));
		this.contextRunner.withBean("observationRegistry", ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new Stopped(stopped));
			return registry;
		}).run((context) -> {
			client(context, "support").prompt().user("hello").call().content();
			ChatTestSupport.chatClient(context).prompt().user("hello").call().content();
			await().atMost(Duration.ofSeconds(60))
				.until(() -> stopped.stream().filter(TurnObservationContext.class::isInstance).count() == 2);
			List<String> turns = stopped.stream()
				.filter(TurnObservationContext.class::isInstance)
				.map((turn) -> turn.getLowCardinalityKeyValue("mantle.agent").getValue())
				.toList();
			assertThat(turns).containsExactlyInAnyOrder("support", "default");
			List<String> supportHooks = stopped.stream()
				.filter(HookObservationContext.class::isInstance)
				.map(HookObservationContext.class::cast)
				.filter((hook) -> hook.getHookName().startsWith("supportHooks."))
				.map((hook) -> hook.getLowCardinalityKeyValue("mantle.agent").getValue())
				.distinct()
				.toList();
			assertThat(supportHooks).containsExactly("support");
			await().atMost(Duration.ofSeconds(60))
				.until(() -> stopped.stream()
					.filter(HookObservationContext.class::isInstance)
					.map(HookObservationContext.class::cast)
					.filter((hook) -> hook.getHookName().equals("everyAgentHooks.requested"))
					.map((hook) -> hook.getLowCardinalityKeyValue("mantle.agent").getValue())
					.sorted()
					.toList()
					.equals(List.of("default", "support")));
		});
	}

	@Test
	void theEndpointListsTheHooksOfEveryAgentAndPerAgent() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(MantleHooksEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=mantlehooks")
			.run((context) -> {
				MantleHooksEndpoint.HooksDescriptor hooks = context.getBean(MantleHooksEndpoint.class).hooks();
				assertThat(hooks.points().get("model-request").modify()).isNull();
				assertThat(hooks.points().get("incoming-message").modify().name()).isEqualTo("everyAgentHooks.trim");
				assertThat(hooks.agents()).containsOnlyKeys("support", "billing");
				MantleHooksEndpoint.PointDescriptor supportRequest = hooks.agents().get("support").get("model-request");
				assertThat(supportRequest.modify().name()).isEqualTo("supportHooks.redact");
				assertThat(supportRequest.modify().agents()).containsExactly("support");
				assertThat(supportRequest.observers()).extracting(MantleHooksEndpoint.HookDescriptor::name)
					.containsExactly("everyAgentHooks.requested");
				assertThat(hooks.agents().get("support").get("incoming-message").modify().agents()).isEmpty();
				assertThat(hooks.agents().get("billing").get("model-request").modify().name())
					.isEqualTo("billingHooks.rules");
			});
	}

	@Test
	void anAgentsHookThatCrashesFailsOnlyThatAgentsTurnsClosed() {
		this.openAi.reply(Reply.text("Plain answer."));
		this.contextRunner.withBean("crashingHooks", CrashingHooks.class).run((context) -> {
			ChatClientResponse crashed = client(context, "crashing").prompt().user("hello").call().chatClientResponse();
			assertThat(crashed.context()).containsEntry(MantleHooks.OUTCOME, "hook_error")
				.containsEntry(MantleHooks.AGENT, "crashing");
			assertThat(crashed.chatResponse().getResult().getOutput().getText()).doesNotContain("simulated")
				.isNotBlank();
			// the crash never reached the model, and another agent's turn is untouched
			assertThat(this.openAi.requests()).isEmpty();
			String plain = ChatTestSupport.chatClient(context).prompt().user("hello").call().content();
			assertThat(plain).isEqualTo("Plain answer.");
		});
	}

	@Test
	void aClientThatNamesAnInvalidAgentFailsClearly() {
		assertThatIllegalArgumentException().isThrownBy(() -> MantleHooks.agent(" "))
			.withMessageContaining("must not be empty or blank");
		assertThatIllegalArgumentException().isThrownBy(() -> MantleHooks.agent("sup port"))
			.withMessageContaining("may only hold letters, digits");
		assertThatIllegalArgumentException().isThrownBy(() -> MantleHooks.agent("a".repeat(65)))
			.withMessageContaining("longer than 64 characters");
		this.contextRunner.run((context) -> {
			ChatClient chatClient = ChatTestSupport.chatClient(context);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> chatClient.prompt()
					.user("hi")
					.advisors((spec) -> spec.param(MantleHooks.AGENT, 42))
					.call()
					.content())
				.withMessageContaining("'mantle.agent' must be a String");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> chatClient.prompt()
					.user("hi")
					.advisors((spec) -> spec.param(MantleHooks.AGENT, "x\ny"))
					.call()
					.content())
				.withMessageContaining("may only hold letters, digits");
			// nothing reached the model
			assertThat(this.openAi.requests()).isEmpty();
		});
	}

	private static ChatClient client(AssertableApplicationContext context, String agent) {
		return context.getBean(ChatClient.Builder.class)
			.build()
			.mutate()
			.defaultAdvisors(MantleHooks.agent(agent))
			.build();
	}

	@ForAgent("support")
	static class SupportHooks {

		final List<TurnStartedPayload> started = new CopyOnWriteArrayList<>();

		final List<String> toolCalls = new CopyOnWriteArrayList<>();

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			List<Message> messages = new ArrayList<>();
			messages.add(new SystemMessage("Answer as support."));
			request.messages().forEach((message) -> messages.add(message));
			ModelRequestPayload withRule = request.withMessages(messages);
			String last = withRule.messages().get(withRule.messages().size() - 1).getText();
			if (last != null && last.contains("4111")) {
				List<Message> redacted = new ArrayList<>(withRule.messages());
				redacted.set(redacted.size() - 1, new UserMessage(last.replace("4111", "[card]")));
				return withRule.withMessages(redacted);
			}
			return withRule;
		}

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		OutgoingTextPayload shout(OutgoingTextPayload text) {
			return text.withText(text.text().toUpperCase());
		}

		@OnTurnStarted
		void started(TurnStartedPayload turn) {
			this.started.add(turn);
		}

		@OnToolCall
		void toolCall(ToolCallPayload call) {
			this.toolCalls.add(call.toolName());
		}

	}

	static class BillingHooks {

		final List<String> events = new CopyOnWriteArrayList<>();

		@ForAgent("billing")
		@ModifyModelRequest
		ModelRequestPayload rules(ModelRequestPayload request) {
			this.events.add("request:" + request.messages().get(request.messages().size() - 1).getText());
			List<Message> messages = new ArrayList<>();
			messages.add(new SystemMessage("Answer as billing."));
			messages.addAll(request.messages());
			return request.withMessages(messages);
		}

	}

	static class EveryAgentHooks {

		final List<String> incoming = new CopyOnWriteArrayList<>();

		final List<String> requests = new CopyOnWriteArrayList<>();

		@ModifyIncomingMessage
		IncomingMessagePayload trim(IncomingMessagePayload message) {
			this.incoming.add(message.text());
			return message.withText(message.text().strip());
		}

		@OnModelRequest
		void requested(ModelRequestPayload request) {
			this.requests.add(request.messages().get(request.messages().size() - 1).getText());
		}

	}

	@ForAgent("crashing")
	static class CrashingHooks {

		@ModifyModelRequest
		ModelRequestPayload crash(ModelRequestPayload request) {
			throw new IllegalStateException("simulated");
		}

	}

	static class SubAgentTools {

		private final ChatClient chatClient;

		final List<Map<String, Object>> contexts = new CopyOnWriteArrayList<>();

		SubAgentTools(ChatClient chatClient) {
			this.chatClient = chatClient;
		}

		@Tool(name = "invoice", description = "The invoice of an order")
		String invoice(String order) {
			ChatClientResponse response = this.chatClient.prompt().user("order " + order).call().chatClientResponse();
			this.contexts.add(response.context());
			return response.chatResponse().getResult().getOutput().getText();
		}

	}

	private record Stopped(List<Observation.Context> stopped) implements ObservationHandler<Observation.Context> {

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
