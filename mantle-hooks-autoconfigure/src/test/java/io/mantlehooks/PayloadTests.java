package io.mantlehooks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Payloads are deeply immutable values: hooks cannot change them in place, and the
 * caller's collections cannot change them later.
 */
class PayloadTests {

	@Test
	void nestedArgumentsAreCopiedAndUnmodifiable() {
		Map<String, Object> address = new HashMap<>(Map.of("city", "Berlin"));
		List<Object> items = new ArrayList<>(List.of("a", Map.of("sku", 1)));
		Map<String, Object> arguments = new HashMap<>();
		arguments.put("address", address);
		arguments.put("items", items);
		arguments.put("note", null);
		ToolCallPayload call = new ToolCallPayload("place_order", arguments, Map.of(), Map.of(), "u1", Map.of(),
				Channel.of("rest"));

		address.put("city", "Paris");
		items.add("b");
		arguments.put("extra", true);

		assertThat(call.arguments()).containsOnlyKeys("address", "items", "note");
		assertThat(call.arguments().get("address")).isEqualTo(Map.of("city", "Berlin"));
		assertThat(call.arguments().get("items")).isEqualTo(List.of("a", Map.of("sku", 1)));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> call.arguments().put("x", 1));
		@SuppressWarnings("unchecked")
		Map<String, Object> nested = (Map<String, Object>) call.arguments().get("address");
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> nested.put("city", "Rome"));
		@SuppressWarnings("unchecked")
		List<Object> nestedList = (List<Object>) call.arguments().get("items");
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> nestedList.add("c"));
	}

	@Test
	void missingIdentityBecomesEmptyValues() {
		OutgoingTextPayload payload = new OutgoingTextPayload("hi", false, null, null, null);
		assertThat(payload.senderId()).isEmpty();
		assertThat(payload.call()).isEmpty();
		assertThat(payload.channel()).isEqualTo(Channel.none());
	}

	@Test
	void withMethodsChangeOnlyTheirField() {
		Channel channel = new Channel("voice", Map.of("codec", "opus"));
		ToolResultPayload result = new ToolResultPayload("lookup", Map.of("id", 1), "secret", false, "u1",
				Map.of("callId", "c1"), channel);
		ToolResultPayload rewritten = result.withValue("redacted").withIsError(true).withArguments(Map.of());
		assertThat(rewritten).isEqualTo(
				new ToolResultPayload("lookup", Map.of(), "redacted", true, "u1", Map.of("callId", "c1"), channel));
		assertThat(result.value()).isEqualTo("secret");
	}

	@Test
	void modelSettingsWithersAndEmptiness() {
		assertThat(ModelSettings.empty().isEmpty()).isTrue();
		ModelSettings settings = ModelSettings.empty().withTemperature(0.2).withStop(List.of("END")).withSeed(7L);
		assertThat(settings.isEmpty()).isFalse();
		assertThat(settings.temperature()).isEqualTo(0.2);
		assertThat(settings.topP()).isNull();
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> settings.stop().add("x"));
	}

	@Test
	void signalsCarryTheirDataWithoutStackTraces() {
		HookRejection rejection = new HookRejection("spam detected", "utter_spam_rejected");
		assertThat(rejection.reason()).isEqualTo("spam detected");
		assertThat(rejection.responseMessage()).contains("utter_spam_rejected");
		assertThat(new HookRejection("spam").responseMessage()).isEmpty();
		assertThat(rejection.getStackTrace()).isEmpty();
		assertThat(new RetryModel("Cite a passage.").feedback()).isEqualTo("Cite a passage.");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryModel(" "));
	}

	@Test
	void catalogueMatchesTheSpecification() {
		assertThat(HookPoint.values()).hasSize(10);
		assertThat(HookPoint.TURN_STARTED.hasModifyLane()).isFalse();
		assertThat(HookPoint.INCOMING_MESSAGE.failPolicy()).isEqualTo(HookPoint.FailPolicy.CLOSED);
		assertThat(HookPoint.MODEL_REQUEST.failPolicy()).isEqualTo(HookPoint.FailPolicy.CLOSED);
		assertThat(HookPoint.MODEL_RESPONSE.failPolicy()).isEqualTo(HookPoint.FailPolicy.OPEN);
		assertThat(HookPoint.TOOL_CALL.failPolicy()).isEqualTo(HookPoint.FailPolicy.CLOSED);
		assertThat(HookPoint.TOOL_RESULT.failPolicy()).isEqualTo(HookPoint.FailPolicy.OPEN);
		assertThat(HookPoint.KNOWLEDGE_QUERY.failPolicy()).isEqualTo(HookPoint.FailPolicy.CLOSED);
		assertThat(HookPoint.KNOWLEDGE_RESULTS.failPolicy()).isEqualTo(HookPoint.FailPolicy.OPEN);
		assertThat(HookPoint.OUTGOING_TEXT.failPolicy()).isEqualTo(HookPoint.FailPolicy.OPEN);
		assertThat(HookPoint.MODEL_RESPONSE.allowsSignal(RetryModel.class)).isTrue();
		assertThat(HookPoint.TOOL_CALL.allowsSignal(RetryModel.class)).isTrue();
		assertThat(HookPoint.INCOMING_MESSAGE.allowsSignal(HookRejection.class)).isTrue();
		assertThat(HookPoint.OUTGOING_TEXT.allowsSignal(HookRejection.class)).isTrue();
		assertThat(HookPoint.MODEL_REQUEST.allowedSignals()).isEmpty();
		assertThat(HookPoint.TOOL_RESULT.allowedSignals()).isEmpty();
		assertThat(HookPoint.KNOWLEDGE_QUERY.allowedSignals()).isEmpty();
		assertThat(HookPoint.KNOWLEDGE_RESULTS.allowedSignals()).isEmpty();
	}

	@Test
	void aWholeReplyIsItsOwnOnlyAndFinalSegment() {
		OutgoingTextPayload whole = new OutgoingTextPayload("Hi.", false, "u", Map.of(), Channel.none());
		assertThat(whole.segment()).isZero();
		assertThat(whole.finalSegment()).isTrue();
		OutgoingTextPayload third = new OutgoingTextPayload("Hi.", false, "u", Map.of(), Channel.none(), 2, false);
		assertThat(third.withText("Hello.")).extracting(OutgoingTextPayload::segment, OutgoingTextPayload::finalSegment)
			.containsExactly(2, false);
		assertThat(new OutgoingTextPayload("x", false, "u", Map.of(), Channel.none(), -3, false).segment()).isZero();
	}

}
