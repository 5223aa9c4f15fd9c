package io.mantlehooks.ai;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.test.ScriptedChatModel;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The test kit's scripted model in whole turns: tool calls and text, in {@code .call()}
 * and {@code .stream()}, with a hook rewriting the call, and the prompts it recorded.
 */
class ScriptedChatModelTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(ChatTestSupport.mantleConfigurations())
		.withBean("cappingHooks", CappingHooks.class);

	@Test
	void aCalledTurnRunsTheScriptedToolCallAsTheHookRewroteItAndAnswers() {
		ScriptedChatModel model = new ScriptedChatModel().toolCall("refund", "{\"amount\":250}")
			.text("Refunded 100 euros.");
		this.contextRunner.withBean(ScriptedChatModel.class, () -> model).run((context) -> {
			RefundTools tools = new RefundTools();
			String answer = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Refund 250")
				.tools(tools)
				.call()
				.content();
			assertThat(answer).isEqualTo("Refunded 100 euros.");
			assertThat(tools.amounts).containsExactly(100.0);
			assertThat(model.prompts()).hasSize(2);
			assertThat(model.userTexts(0)).containsExactly("Refund 250");
			assertThat(model.prompts().get(1).getInstructions()).extracting((message) -> message.getMessageType())
				.containsExactly(MessageType.USER, MessageType.ASSISTANT, MessageType.TOOL);
			assertThat(model.remaining()).isZero();
		});
	}

	@Test
	void aStreamedTurnGetsTheTextWordByWordAfterTheTool() {
		ScriptedChatModel model = new ScriptedChatModel().toolCall("refund", "{\"amount\":20}")
			.text("Refunded 20 euros.");
		this.contextRunner.withBean(ScriptedChatModel.class, () -> model).run((context) -> {
			RefundTools tools = new RefundTools();
			List<String> chunks = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Refund 20")
				.tools(tools)
				.stream()
				.content()
				.collectList()
				.block();
			assertThat(String.join("", chunks)).isEqualTo("Refunded 20 euros.");
			assertThat(tools.amounts).containsExactly(20.0);
			assertThat(model.prompts()).hasSize(2);
		});
	}

	@Test
	void aUsedUpScriptFailsWithAClearMessageUnlessAFallbackAnswers() {
		ScriptedChatModel model = new ScriptedChatModel().text("one");
		assertThat(model.call(new Prompt("a")).getResult().getOutput().getText()).isEqualTo("one");
		assertThatIllegalStateException().isThrownBy(() -> model.call(new Prompt("b")))
			.withMessage("ScriptedChatModel has no reply left for model call 2; script more replies");
		model.otherwise((prompt) -> "echo " + prompt.getUserMessage().getText());
		assertThat(model.call(new Prompt("c")).getResult().getOutput().getText()).isEqualTo("echo c");
		assertThat(model.stream(new Prompt("d"))
			.map((chunk) -> chunk.getResult().getOutput().getText())
			.collectList()
			.block()).containsExactly("echo ", "d");
	}

	@Test
	void aChatClientOverTheModelSeesTheHooksToo() {
		ScriptedChatModel model = new ScriptedChatModel().toolCalls("Checking.", Map.of("refund", "{\"amount\":1000}"));
		model.text("Done.");
		this.contextRunner.withBean(ScriptedChatModel.class, () -> model).run((context) -> {
			RefundTools tools = new RefundTools();
			ChatClient chatClient = ChatTestSupport.chatClient(context);
			assertThat(chatClient.prompt().user("Refund all").tools(tools).call().content()).isEqualTo("Done.");
			assertThat(tools.amounts).containsExactly(100.0);
		});
	}

	static class CappingHooks {

		@ModifyToolCall
		ToolCallPayload cap(ToolCallPayload call) {
			Object amount = call.arguments().get("amount");
			return (amount instanceof Number number && number.doubleValue() > 100)
					? call.withArguments(Map.of("amount", 100)) : call;
		}

	}

	static class RefundTools {

		final List<Double> amounts = new CopyOnWriteArrayList<>();

		@Tool(description = "Refund an amount in euros")
		String refund(@ToolParam(description = "the amount") double amount) {
			this.amounts.add(amount);
			return "refunded " + amount;
		}

	}

}
