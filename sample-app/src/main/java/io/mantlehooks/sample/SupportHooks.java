package io.mantlehooks.sample;

import java.util.regex.Pattern;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.OnIncomingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The demo's hooks: one modify hook that masks card numbers before anything else sees
 * them, and one observer that audits every incoming message.
 */
@Component
class SupportHooks {

	private static final Logger logger = LoggerFactory.getLogger(SupportHooks.class);

	private static final Pattern CARD_NUMBER = Pattern.compile("\\b(?:\\d[ -]?){13,16}\\b");

	@ModifyIncomingMessage
	IncomingMessagePayload maskCardNumbers(IncomingMessagePayload message) {
		return message.withText(CARD_NUMBER.matcher(message.text()).replaceAll("[card number]"));
	}

	@OnIncomingMessage
	void audit(IncomingMessagePayload message) {
		logger.info("audit: {} characters from '{}' on channel '{}'", message.text().length(), message.senderId(),
				message.channel().name());
	}

}
