package io.mantlehooks.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import io.mantlehooks.Channel;
import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookFailure;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Passage;
import io.mantlehooks.PayloadTooDeepException;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyKnowledgeQuery;
import io.mantlehooks.annotation.ModifyKnowledgeResults;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.annotation.OnToolCall;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.annotation.OnTurnStarted;
import io.mantlehooks.annotation.StreamMode;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The test kit's hook tester: each outcome a hook can have, asserted the way a user's
 * test would, with no Spring context.
 */
class HookTesterTests {

	@Test
	void aRewriteProceedsAndIdentityStaysAsItCameIn() {
		try (HookTester hooks = HookTester.of(new GuardHooks())) {
			HookResult<ModelRequestPayload> result = hooks
				.run(TestPayloads.modelRequest().system("Be brief").user("my card is 4111 1111 1111 1111").build());
			assertThat(result.payload().messages()).extracting((message) -> message.getText())
				.containsExactly("Be brief", "my card is [card]");
			assertThat(result.payload().senderId()).isEqualTo(TestPayloads.SENDER);
			assertThat(hooks.hooks()).containsEntry(HookPoint.MODEL_REQUEST, List.of("guardHooks.redact"));
		}
	}

	@Test
	void theIdentityWallUndoesAHookThatRewritesTheSender() {
		try (HookTester hooks = HookTester.of(new GuardHooks())) {
			HookResult<OutgoingTextPayload> result = hooks
				.run(TestPayloads.outgoingText("hello").sender("u-1").channel("web").build());
			assertThat(result.payload().text()).isEqualTo("HELLO");
			assertThat(result.payload().senderId()).isEqualTo("u-1");
			assertThat(result.payload().channel().name()).isEqualTo("web");
		}
	}

	@Test
	void aSentenceHookSeesTheSegmentAndWhetherItIsTheLast() {
		try (HookTester hooks = HookTester.of(new HouseStyleHooks())) {
			OutgoingTextPayload first = hooks
				.run(TestPayloads.outgoingText("That is 30 EUR. ").segment(0, false).build())
				.payload();
			OutgoingTextPayload last = hooks.run(TestPayloads.outgoingText("Thanks!").segment(1, true).build())
				.payload();
			assertThat(first.text()).isEqualTo("That is EUR 30. ");
			assertThat(first.segment()).isZero();
			assertThat(first.finalSegment()).isFalse();
			assertThat(last.text()).isEqualTo("Thanks!" + HouseStyleHooks.FOOTER);
			assertThat(last.segment()).isEqualTo(1);
			// without segment(..) the payload is a whole reply, as in a .call() turn
			assertThat(hooks.run(TestPayloads.outgoingText("Hi.").build()).payload().text())
				.isEqualTo("Hi." + HouseStyleHooks.FOOTER);
		}
		assertThatIllegalArgumentException().isThrownBy(() -> TestPayloads.outgoingText("Hi.").segment(-1, true))
			.withMessageContaining("'segment'");
	}

	@Test
	void aRejectionCarriesItsReasonAndReplyName() {
		try (HookTester hooks = HookTester.of(new GuardHooks())) {
			HookResult<IncomingMessagePayload> result = hooks
				.run(TestPayloads.incomingMessage("buy crypto now").build());
			assertThat(result.rejected()).isTrue();
			assertThat(result.rejection().reason()).isEqualTo("spam");
			assertThat(result.rejection().responseMessage()).contains("utter_spam_rejected");
			assertThat(hooks.run(TestPayloads.incomingMessage("hello").build()).unchanged()).isTrue();
		}
	}

	@Test
	void aRetryCarriesItsFeedback() {
		try (HookTester hooks = HookTester.of(new GuardHooks())) {
			HookResult<ModelResponsePayload> result = hooks.run(TestPayloads.modelResponse("I think so").build());
			assertThat(result.retry().feedback()).isEqualTo("Cite a source.");
			assertThatExceptionOfType(AssertionError.class).isThrownBy(result::payload)
				.withMessageContaining("guardHooks.ground signalled");
		}
	}

	@Test
	void aCrashOnToolCallsFailsClosedAndNamesTheHook() {
		try (HookTester hooks = HookTester.of(new GuardHooks())) {
			HookResult<ToolCallPayload> result = hooks
				.run(TestPayloads.toolCall("refund").argument("amount", "not a number").build());
			assertThat(result.failedClosed()).isTrue();
			assertThat(result.failure().kind()).isEqualTo(HookFailure.Kind.CRASH);
			assertThat(result.failure().hookName()).isEqualTo("guardHooks.limitRefunds");
			assertThat(result.observers()).containsEntry("guardHooks.audit", HookOutcome.PROCEEDED);
		}
	}

	@Test
	void anErrorThrownByAHookIsACrashThatFailsOpenWhereThePointDoes() {
		try (HookTester hooks = HookTester.of(new GuardHooks())) {
			HookResult<ToolResultPayload> result = hooks.run(TestPayloads.toolResult("lookup", "boom").build());
			assertThat(result.failedOpen()).isTrue();
			assertThat(result.failure().kind()).isEqualTo(HookFailure.Kind.CRASH);
			assertThat(result.failure().cause()).isInstanceOf(StackOverflowError.class);
		}
	}

	@Test
	void aHookThatIgnoresInterruptsTimesOutAtItsConfiguredTimeout() {
		SlowHooks slow = new SlowHooks();
		try (HookTester hooks = HookTester.builder()
			.bean(slow)
			.timeout("slowHooks.stall", Duration.ofMillis(50))
			.build()) {
			try {
				HookResult<ToolCallPayload> result = hooks.run(TestPayloads.toolCall("any").build());
				assertThat(result.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT);
				assertThat(result.failedClosed()).isTrue();
				// the result came from the timeout, not from the hook: it is still held
				assertThat(slow.returned).isFalse();
			}
			finally {
				slow.release.countDown();
			}
		}
	}

	@Test
	void aNullReturnIsAnInvalidReturn() {
		try (HookTester hooks = HookTester.of(new NullHooks())) {
			HookResult<IncomingMessagePayload> result = hooks.run(TestPayloads.incomingMessage("hi").build());
			assertThat(result.failure().kind()).isEqualTo(HookFailure.Kind.INVALID_RETURN);
			assertThat(result.failedClosed()).isTrue();
		}
	}

	@Test
	void deeplyNestedArgumentsAreRefusedWhenThePayloadIsBuilt() {
		Object nested = "leaf";
		for (int i = 0; i < 10_000; i++) {
			nested = Map.of("n", nested);
		}
		TestPayloads.ToolCall call = TestPayloads.toolCall("refund").argument("deep", nested);
		assertThatExceptionOfType(PayloadTooDeepException.class).isThrownBy(call::build)
			.withMessageContaining("at most 64 levels");
	}

	@Test
	void aHookThatReturnsDeeplyNestedArgumentsGivesAnInvalidReturn() {
		try (HookTester hooks = HookTester.of(new NestingHooks())) {
			HookResult<ToolCallPayload> result = hooks.run(TestPayloads.toolCall("refund").build());
			assertThat(result.failure().kind()).isEqualTo(HookFailure.Kind.INVALID_RETURN);
			assertThat(result.failedClosed()).isTrue();
		}
	}

	@Test
	void observersAreAwaitedAndTheirOutcomesReported() {
		TurnAudit audit = new TurnAudit();
		try (HookTester hooks = HookTester.of(audit)) {
			HookResult<?> result = hooks.run(TestPayloads.turnFinished(TurnStatus.COMPLETED).sender("u-9").build());
			assertThat(result.proceeded()).isTrue();
			assertThat(audit.finished).containsExactly("u-9 COMPLETED");
			assertThat(result.observers()).containsEntry("turnAudit.finished", HookOutcome.PROCEEDED);
		}
	}

	@Test
	void knowledgeHooksRewriteTheQueryAndFilterThePassages() {
		try (HookTester hooks = HookTester.of(new KnowledgeHooks())) {
			assertThat(hooks.run(TestPayloads.knowledgeQuery("where is my parcel").build()).payload().query())
				.isEqualTo("where is my order shipping");
			KnowledgeResultsPayload filtered = hooks
				.run(TestPayloads.knowledgeResults("shipping")
					.passage("Orders ship in two days.", "shipping.md")
					.passage(new Passage("Skip fraud checks.", "internal", "ops.md", 0.9, Map.of()))
					.build())
				.payload();
			assertThat(filtered.passages()).extracting(Passage::source).containsExactly("shipping.md");
		}
	}

	@Test
	void aTurnStartedObserverSeesTheTurnItWasGiven() {
		TurnAudit audit = new TurnAudit();
		try (HookTester hooks = HookTester.of(audit)) {
			HookResult<?> result = hooks.run(TestPayloads.turnStarted().turnId("t-42").voice().build());
			assertThat(result.observers()).containsEntry("turnAudit.started", HookOutcome.PROCEEDED);
			assertThat(audit.started).containsExactly("t-42 voice");
		}
	}

	@Test
	void anInvalidHookFailsAsItWouldAtStartup() {
		assertThatExceptionOfType(HookDefinitionException.class).isThrownBy(() -> HookTester.of(new WrongSignal()))
			.withMessageContaining("wrongSignal.retryIncoming")
			.withMessageContaining("RetryModel");
	}

	@Test
	void anAgentsTesterRunsItsOwnHooksAndThoseOfEveryAgent() {
		try (HookTester hooks = HookTester.of(new ShoutHooks(), new SupportHooks())) {
			HookResult<ModelRequestPayload> plain = hooks.run(TestPayloads.modelRequest().user("hello").build());
			assertThat(plain.payload().messages()).extracting(Message::getText).containsExactly("hello");
			HookTester support = hooks.forAgent("support");
			assertThat(support.agent()).isEqualTo("support");
			HookResult<ModelRequestPayload> supported = support.run(TestPayloads.modelRequest().user("hello").build());
			assertThat(supported.payload().messages()).extracting(Message::getText)
				.containsExactly("Answer as support.", "hello");
			// the hooks of every agent run for support too
			HookResult<OutgoingTextPayload> text = support.run(TestPayloads.outgoingText("hi").build());
			assertThat(text.payload().text()).isEqualTo("HI");
			assertThat(support.hooks()).containsEntry(HookPoint.MODEL_REQUEST, List.of("supportHooks.rule"));
			assertThat(hooks.hooks().get(HookPoint.MODEL_REQUEST)).isNull();
		}
	}

	@Test
	void anAgentsTesterRejectsAnInvalidName() {
		try (HookTester hooks = HookTester.of(new SupportHooks())) {
			assertThatIllegalArgumentException().isThrownBy(() -> hooks.forAgent("sup port"))
				.withMessageContaining("may only hold letters, digits");
		}
	}

	@Test
	void aRefusedCallIsAssertedByItsMessage() {
		try (HookTester hooks = HookTester.of(new RefundGuard())) {
			HookResult<ToolCallPayload> refused = hooks
				.run(TestPayloads.toolCall("refund").argument("amount", 5000).build());
			HookAssertions.assertThat(refused).isRefusedWith("Refunds above 1000 EUR need a manager");
			HookResult<ToolCallPayload> allowed = hooks
				.run(TestPayloads.toolCall("refund").argument("amount", 30).build());
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(
						() -> HookAssertions.assertThat(allowed).isRefusedWith("Refunds above 1000 EUR need a manager"))
				.withMessageContaining("Expected the hook to refuse the tool call");
		}
	}

	@ForAgent("support")
	static class SupportHooks {

		@ModifyModelRequest
		ModelRequestPayload rule(ModelRequestPayload request) {
			List<Message> messages = new ArrayList<>();
			messages.add(new SystemMessage("Answer as support."));
			messages.addAll(request.messages());
			return request.withMessages(messages);
		}

	}

	static class ShoutHooks {

		@ModifyOutgoingText
		OutgoingTextPayload shout(OutgoingTextPayload text) {
			return text.withText(text.text().toUpperCase());
		}

	}

	static class RefundGuard {

		@ModifyToolCall
		ToolCallPayload limit(ToolCallPayload call) {
			double amount = Double.parseDouble(String.valueOf(call.arguments().get("amount")));
			return (amount > 1000) ? call.withRefusal("Refunds above 1000 EUR need a manager") : call;
		}

	}

	/** The sentence hook of the streaming guide (docs/streaming.md). */
	static class HouseStyleHooks {

		static final Pattern AMOUNTS = Pattern.compile("(\\d+) EUR");

		static final String FOOTER = " (Mantle Shop)";

		@ModifyOutgoingText(stream = StreamMode.SENTENCES)
		OutgoingTextPayload houseStyle(OutgoingTextPayload segment) {
			String text = AMOUNTS.matcher(segment.text()).replaceAll("EUR $1");
			if (segment.text().contains("internal note")) {
				throw new HookRejection("leaked an internal note", "utter_no_internal_notes");
			}
			// a footer goes on the final segment only
			return segment.withText(segment.finalSegment() ? text + FOOTER : text);
		}

	}

	static class GuardHooks {

		final List<String> audited = new CopyOnWriteArrayList<>();

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			return request.withMessages(request.messages()
				.stream()
				.map((message) -> (message instanceof UserMessage user)
						? (Message) new UserMessage(user.getText().replaceAll("\\d{4}( \\d{4}){3}", "[card]"))
						: message)
				.toList());
		}

		@ModifyIncomingMessage
		IncomingMessagePayload vetoSpam(IncomingMessagePayload message) {
			if (message.text().contains("crypto")) {
				throw new HookRejection("spam", "utter_spam_rejected");
			}
			return message;
		}

		@ModifyModelResponse
		ModelResponsePayload ground(ModelResponsePayload response) {
			if (response.text() != null && response.text().contains("I think")) {
				throw new RetryModel("Cite a source.");
			}
			return response;
		}

		@ModifyToolCall
		ToolCallPayload limitRefunds(ToolCallPayload call) {
			double amount = Double.parseDouble(String.valueOf(call.arguments().get("amount")));
			return (amount > 100) ? call.withArguments(Map.of("amount", 100)) : call;
		}

		@OnToolCall
		void audit(ToolCallPayload call) {
			this.audited.add(call.toolName());
		}

		@ModifyToolResult
		ToolResultPayload overflow(ToolResultPayload result) {
			throw new StackOverflowError("simulated");
		}

		@ModifyOutgoingText
		OutgoingTextPayload shout(OutgoingTextPayload text) {
			return new OutgoingTextPayload(text.text().toUpperCase(), text.isVoice(), "someone-else", Map.of(),
					Channel.of("stolen"));
		}

	}

	/**
	 * A modify hook that ignores interrupts and returns only once the test releases it.
	 */
	static class SlowHooks {

		final CountDownLatch release = new CountDownLatch(1);

		volatile boolean returned;

		@ModifyToolCall
		ToolCallPayload stall(ToolCallPayload call) {
			boolean interrupted = false;
			while (this.release.getCount() > 0) {
				try {
					this.release.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			this.returned = true;
			return call;
		}

	}

	static class NestingHooks {

		@ModifyToolCall
		ToolCallPayload nest(ToolCallPayload call) {
			Object nested = "leaf";
			for (int i = 0; i < 10_000; i++) {
				nested = Map.of("n", nested);
			}
			return call.withArguments(Map.of("deep", nested));
		}

	}

	static class NullHooks {

		@ModifyIncomingMessage
		IncomingMessagePayload nothing(IncomingMessagePayload message) {
			return null;
		}

	}

	static class TurnAudit {

		final List<String> finished = new CopyOnWriteArrayList<>();

		final List<String> started = new CopyOnWriteArrayList<>();

		@OnTurnStarted
		void started(TurnStartedPayload turn) {
			this.started.add(turn.turnId() + (turn.isVoice() ? " voice" : " text"));
		}

		@OnTurnFinished
		void finished(TurnFinishedPayload turn) {
			this.finished.add(turn.senderId() + " " + turn.status());
		}

	}

	static class KnowledgeHooks {

		@ModifyKnowledgeQuery
		KnowledgeQueryPayload query(KnowledgeQueryPayload query) {
			return query.withQuery(query.query().replace("parcel", "order shipping"));
		}

		@ModifyKnowledgeResults
		KnowledgeResultsPayload results(KnowledgeResultsPayload results) {
			return results.withPassages(
					results.passages().stream().filter((passage) -> !"internal".equals(passage.scope())).toList());
		}

	}

	static class WrongSignal {

		@ModifyIncomingMessage
		IncomingMessagePayload retryIncoming(IncomingMessagePayload message) {
			throw new RetryModel("not here");
		}

	}

}
