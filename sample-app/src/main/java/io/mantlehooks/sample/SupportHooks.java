package io.mantlehooks.sample;

import java.util.regex.Pattern;

import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.annotation.OnTurnFinished;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The demo's hooks: a modify hook that masks card numbers before the model or memory sees
 * them and turns away spam requests, and two observers that audit every message and turn.
 */
@Component
class SupportHooks {

	private static final Logger logger = LoggerFactory.getLogger(SupportHooks.class);

	private static final Pattern CARD_NUMBER = Pattern.compile("\\b(?:\\d[ -]?){13,16}\\b");

	@ModifyIncomingMessage
	IncomingMessagePayload maskCardNumbers(IncomingMessagePayload message) {
		if (message.text().toLowerCase().contains("spam")) {
			throw new HookRejection("spam request", "utter_spam_rejected");
		}
		return message.withText(CARD_NUMBER.matcher(message.text()).replaceAll("[card number]"));
	}

	@OnIncomingMessage
	void audit(IncomingMessagePayload message) {
		logger.info("audit: {} characters from '{}' on channel '{}'", message.text().length(), message.senderId(),
				message.channel().name());
	}

	@OnTurnFinished
	void turnFinished(TurnFinishedPayload turn) {
		logger.info("turn {} finished: {}", turn.turnId(), turn.status());
	}

}
