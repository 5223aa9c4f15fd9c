package io.mantlehooks.sample;

import java.util.Locale;
import java.util.regex.Pattern;

import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.StreamMode;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.stereotype.Component;

/**
 * Guardrails around the conversation: turn away sales pitches with a named reply, keep
 * card numbers and email addresses away from the model, show amounts the way the shop
 * writes them and never let an internal note reach the user. None of them needs a whole
 * completion, so the chat page's replies stream ({@link GroundingHooks} would hold them).
 * The redaction is the shop's alone ({@code @ForAgent("shop")}); the others belong to
 * every agent, but only a turn's own messages and replies reach them: the
 * {@link Copywriter}'s calls, nested in the shop's turns, have no incoming message or
 * outgoing text.
 */
@Component
public class GuardHooks {

	static final Pattern CARD_NUMBER = Pattern.compile("\\b(?:\\d[ -]?){12,15}\\d\\b");

	static final Pattern EMAIL = Pattern.compile("[\\w.+-]+@[\\w-]+(\\.[\\w-]+)+");

	private static final Pattern EUR_AMOUNT = Pattern.compile("(\\d+(?:\\.\\d{2})?) EUR");

	/** What staff write into notes the model may have seen; never for customers. */
	private static final Pattern INTERNAL_NOTE = Pattern.compile("(?i)\\binternal note\\b|\\bstaff code\\b");

	/**
	 * Veto: the shop's assistant does not discuss crypto or spam.
	 * @param message the user's message
	 * @return the message, unchanged when it passes
	 */
	@ModifyIncomingMessage
	public IncomingMessagePayload vetoSalesPitches(IncomingMessagePayload message) {
		String text = message.text().toLowerCase(Locale.ROOT);
		if (text.contains("crypto") || text.contains("spam")) {
			throw new HookRejection("sales pitch", "utter_spam_rejected");
		}
		return message;
	}

	/**
	 * PII redaction: the shop's model never sees card numbers or email addresses the user
	 * typed. Scoped to the shop: the copywriter's requests are written by the shop's own
	 * code, and a gift card's code in them must reach its model as it is (the copywriter
	 * has a model-request hook of its own, {@link CopywriterHooks#signOff}).
	 * @param request the request about to be sent
	 * @return the request with redacted messages
	 */
	@ModifyModelRequest
	@ForAgent("shop")
	public ModelRequestPayload redactPersonalData(ModelRequestPayload request) {
		return request.withMessages(request.messages().stream().map(GuardHooks::redact).toList());
	}

	/**
	 * House style, sentence by sentence: amounts as {@code €30.00}, not
	 * {@code 30.00 EUR}, and an internal note is never sent. The hook sees each sentence
	 * of a streamed reply as it completes, so the reply keeps streaming; a
	 * {@code .call()} turn passes the whole reply once. A sentence with an internal note
	 * is rejected: the engine stops the model, and the chat page replaces what it showed
	 * of the reply with {@code utter_internal_withheld}.
	 * @param text the sentence (or whole reply) about to be sent
	 * @return the text in house style
	 */
	@ModifyOutgoingText(stream = StreamMode.SENTENCES)
	public OutgoingTextPayload houseStyle(OutgoingTextPayload text) {
		if (INTERNAL_NOTE.matcher(text.text()).find()) {
			throw new HookRejection("internal note in the reply", "utter_internal_withheld");
		}
		return text.withText(EUR_AMOUNT.matcher(text.text()).replaceAll("€$1"));
	}

	private static Message redact(Message message) {
		if (!(message instanceof UserMessage user) || user.getText() == null) {
			return message;
		}
		String text = EMAIL.matcher(CARD_NUMBER.matcher(user.getText()).replaceAll("[card]")).replaceAll("[email]");
		return text.equals(user.getText()) ? message : user.mutate().text(text).build();
	}

}
