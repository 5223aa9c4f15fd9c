package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ai.StreamingGuardrailTests.SentenceHooks;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Sentence-by-sentence outgoing-text hooks with the real Spring AI OpenAI client over
 * server-sent events: what the caller receives per chunk, what {@code .call()} turns show
 * the hook, how a tool-call hook holds the text of a round that may call tools, and what
 * the application says at startup about what still buffers.
 */
@ExtendWith(OutputCaptureExtension.class)
class StreamingGuardrailOpenAiTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withBean("sentenceHooks", SentenceHooks.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void aStreamedReplyArrivesSentenceBySentence() {
		this.openAi.reply(Reply.text("Rome is sunny. Take e.g. a hat. Dr. Rossi agrees."));
		this.contextRunner.run((context) -> {
			List<ChatClientResponse> chunks = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Weather?")
				// a client cannot mark its own reply retracted
				.advisors((spec) -> spec.param(MantleHooks.RETRACTED, true))
				.stream()
				.chatClientResponse()
				.collectList()
				.block(WAIT);
			assertThat(chunks).extracting(StreamingGuardrailOpenAiTests::text)
				.filteredOn((text) -> !text.isEmpty())
				.containsExactly("ROME IS SUNNY. ", "TAKE E.G. A HAT. ", "DR. ROSSI AGREES.");
			assertThat(chunks).noneMatch((chunk) -> chunk.context().containsKey(MantleHooks.RETRACTED));
			// the last chunk still carries the model's usage
			assertThat(chunks.get(chunks.size() - 1).chatResponse().getMetadata().getUsage().getTotalTokens())
				.isEqualTo(15);
			assertThat(hooks(context).segments)
				.extracting(OutgoingTextPayload::segment, OutgoingTextPayload::finalSegment)
				.containsExactly(tuple(0, false), tuple(1, false), tuple(2, true));
		});
	}

	@Test
	void callTurnsShowTheHookTheWholeReply() {
		this.openAi.reply(Reply.text("Rome is sunny. Take a hat."));
		this.contextRunner.run((context) -> {
			String reply = ChatTestSupport.chatClient(context).prompt().user("Weather?").call().content();
			assertThat(reply).isEqualTo("ROME IS SUNNY. TAKE A HAT.");
			assertThat(hooks(context).segments)
				.extracting(OutgoingTextPayload::text, OutgoingTextPayload::segment, OutgoingTextPayload::finalSegment)
				.containsExactly(tuple("Rome is sunny. Take a hat.", 0, true));
		});
	}

	@Test
	void textThatCameWithARetriedBatchIsNeverSent() {
		this.openAi.reply(
				Reply.textAndToolCalls("I will refund A1. ", new ToolCall("c1", "refund", "{\"order\":\"A1\"}")),
				Reply.textAndToolCalls("Checking A1. ", new ToolCall("c2", "refund", "{\"order\":\"A1\"}")),
				Reply.text("Refunded. Anything else?"));
		AtomicInteger preflights = new AtomicInteger();
		this.contextRunner.withBean("toolHooks", ToolHooks.class).run((context) -> {
			context.getBean(ToolHooks.class).call = (payload) -> {
				if (preflights.incrementAndGet() == 1) {
					throw new RetryModel("Check first.");
				}
				return payload;
			};
			CountingRefundTools tools = new CountingRefundTools();
			List<String> received = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Refund A1")
				.tools(tools)
				.stream()
				.content()
				.filter((text) -> !text.isEmpty())
				.collectList()
				.block(WAIT);
			// the first round's batch was discarded with its text; the second ran
			assertThat(received).containsExactly("CHECKING A1. ", "REFUNDED. ", "ANYTHING ELSE?");
			assertThat(hooks(context).segments).extracting(OutgoingTextPayload::text)
				.doesNotContain("I will refund A1. ");
		});
	}

	@Test
	void aBatchThatFailsClosedEndsTheReplyWithTheEngineReplyAsTheFinalSegment() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("c1", "refund", "{\"order\":\"A1\"}")));
		this.contextRunner.withBean("toolHooks", ToolHooks.class).run((context) -> {
			context.getBean(ToolHooks.class).call = (payload) -> {
				throw new IllegalStateException("preflight broke");
			};
			List<ChatClientResponse> chunks = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Refund A1")
				.tools(new CountingRefundTools())
				.stream()
				.chatClientResponse()
				.collectList()
				.block(WAIT);
			ChatClientResponse last = chunks.get(chunks.size() - 1);
			assertThat(text(last)).isEqualTo("SORRY, I COULDN'T COMPLETE THAT ACTION. PLEASE TRY AGAIN.");
			assertThat(last.context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(hooks(context).segments).singleElement()
				.extracting(OutgoingTextPayload::finalSegment)
				.isEqualTo(true);
		});
	}

	@Test
	void startupSaysWhatStillBuffersAndWhy(CapturedOutput output) {
		this.contextRunner.withBean("toolHooks", ToolHooks.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("With the tool-call hook 'toolHooks.preflight', the text of a streamed round "
					+ "that may call tools is held until the round ends");
		});
		this.contextRunner.withBean("responseHook", ResponseHook.class)
			.run((context) -> assertThat(output).contains(
					"the model-response hook 'responseHook.keep' needs the " + "whole completion (it may retry it)"));
	}

	private static String text(ChatClientResponse response) {
		if (response.chatResponse() == null || response.chatResponse().getResult() == null) {
			return "";
		}
		String text = response.chatResponse().getResult().getOutput().getText();
		return (text != null) ? text : "";
	}

	private static SentenceHooks hooks(AssertableApplicationContext context) {
		return context.getBean(SentenceHooks.class);
	}

	static class ResponseHook {

		@ModifyModelResponse
		ModelResponsePayload keep(ModelResponsePayload payload) {
			return payload;
		}

	}

}
