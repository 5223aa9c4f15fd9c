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
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Sentence-by-sentence outgoing-text hooks with the real Spring AI OpenAI client over
 * server-sent events: what the caller receives per chunk, what {@code .call()} turns show
 * the hook, how the text of a round whose tool batch preflight discards is taken back,
 * and what the application says at startup about what still buffers.
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
	void textThatCameWithARetriedBatchStreamsAndIsTakenBack() {
		this.openAi.reply(
				Reply.textAndToolCalls("I will refund A1. ", new ToolCall("c1", "refund", "{\"order\":\"A1\"}")),
				Reply.textAndToolCalls("Checking A1. ", new ToolCall("c2", "refund", "{\"order\":\"A1\"}")),
				Reply.text("Refunded. Anything else?"));
		AtomicInteger preflights = new AtomicInteger();
		ChatMemory memory = MessageWindowChatMemory.builder().build();
		this.contextRunner.withBean("toolHooks", ToolHooks.class)
			.withPropertyValues("mantle.hooks.transcript.enabled=true")
			.run((context) -> {
				context.getBean(ToolHooks.class).call = (payload) -> {
					if (preflights.incrementAndGet() == 1) {
						throw new RetryModel("Check first.");
					}
					return payload;
				};
				CountingRefundTools tools = new CountingRefundTools();
				List<ChatClientResponse> chunks = ChatTestSupport.chatClient(context)
					.prompt()
					.user("Refund A1")
					.tools(tools)
					.advisors(ChatTestSupport.memory(memory, "c-1"))
					.stream()
					.chatClientResponse()
					.collectList()
					.block(WAIT);
				// the first round's text streamed as it came, then a retraction took it
				// back with the batch the hook retried; the second round's batch ran
				assertThat(chunks).extracting(StreamingGuardrailOpenAiTests::text)
					.filteredOn((text) -> !text.isEmpty())
					.containsExactly("I WILL REFUND A1. ", "CHECKING A1. ", "REFUNDED. ", "ANYTHING ELSE?");
				assertThat(chunks).filteredOn(StreamingGuardrailOpenAiTests::retracted)
					.singleElement()
					.satisfies((retraction) -> assertThat(text(retraction)).isEmpty());
				assertThat(shown(chunks)).isEqualTo("CHECKING A1. REFUNDED. ANYTHING ELSE?");
				assertThat(tools.refunds).hasValue(1);
				assertThat(ChatTurnTests.texts(memory.get("c-1"))).containsExactly("USER: Refund A1",
						"ASSISTANT: CHECKING A1. REFUNDED. ANYTHING ELSE?");
				TranscriptStore transcript = context.getBean(TranscriptStore.class);
				await().atMost(WAIT).until(() -> transcript.find("c-1").size() == 3);
				assertThat(transcript.find("c-1")).extracting(TranscriptEntry::text, TranscriptEntry::discarded)
					.containsExactly(tuple("Refund A1", false), tuple("I WILL REFUND A1. ", true),
							tuple("CHECKING A1. REFUNDED. ANYTHING ELSE?", false));
			});
	}

	@Test
	void textThatCameWithAClosedBatchStreamsAndIsReplacedByTheErrorReply() {
		this.openAi
			.reply(Reply.textAndToolCalls("I will refund A1. ", new ToolCall("c1", "refund", "{\"order\":\"A1\"}")));
		this.contextRunner.withBean("toolHooks", ToolHooks.class).run((context) -> {
			context.getBean(ToolHooks.class).call = (payload) -> {
				// a crash fails the tool-call point closed: nothing in the batch runs
				throw new IllegalStateException("preflight crashed");
			};
			CountingRefundTools tools = new CountingRefundTools();
			List<ChatClientResponse> chunks = ChatTestSupport.chatClient(context)
				.prompt()
				.user("Refund A1")
				.tools(tools)
				.stream()
				.chatClientResponse()
				.collectList()
				.block(WAIT);
			List<String> texts = chunks.stream()
				.map(StreamingGuardrailOpenAiTests::text)
				.filter((text) -> !text.isEmpty())
				.toList();
			assertThat(texts).hasSize(2).first().isEqualTo("I WILL REFUND A1. ");
			assertThat(chunks).filteredOn(StreamingGuardrailOpenAiTests::retracted)
				.singleElement()
				.satisfies((retraction) -> assertThat(text(retraction)).isEmpty());
			// the user is left with the error reply alone
			assertThat(shown(chunks)).isEqualTo(texts.get(1)).doesNotContain("REFUND A1");
			assertThat(chunks.get(chunks.size() - 1).context()).containsEntry(MantleHooks.OUTCOME, "hook_error");
			assertThat(tools.refunds).hasValue(0);
		});
	}

	/**
	 * What a client shows at the end, replacing its text at each retraction.
	 */
	private static String shown(List<ChatClientResponse> chunks) {
		StringBuilder shown = new StringBuilder();
		for (ChatClientResponse chunk : chunks) {
			if (retracted(chunk)) {
				shown.setLength(0);
			}
			shown.append(text(chunk));
		}
		return shown.toString();
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
			assertThat(output).contains("With the tool-call hook 'toolHooks.preflight', streamed replies still go out "
					+ "sentence by sentence through 'sentenceHooks.outgoing'; the text of a round whose tool batch "
					+ "preflight retries, closes or pauses is taken back");
		});
		this.contextRunner.withBean("responseHook", ResponseHook.class)
			.run((context) -> assertThat(output).contains(
					"the model-response hook 'responseHook.keep' needs the " + "whole completion (it may retry it)"));
	}

	/** Whether a chunk replaces the reply so far, as a caller reads it. */
	private static boolean retracted(ChatClientResponse chunk) {
		return Boolean.TRUE.equals(chunk.context().get(MantleHooks.RETRACTED));
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
