package io.mantlehooks.sample;

import java.util.ArrayList;
import java.util.List;

import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyModelRequest;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.stereotype.Component;

/**
 * The copywriter's own hook: every hook of this class runs only in the
 * {@link Copywriter}'s calls. It is the copywriter's one model-request modify hook; the
 * shop has its own ({@link GuardHooks#redactPersonalData}, scoped to the shop), and
 * neither touches the other's requests.
 */
@Component
@ForAgent("copywriter")
public class CopywriterHooks {

	/** The sign-off every note ends with: the user sees that this hook ran. */
	static final String SIGN_OFF = "Warm wishes from all of us at Mantle Shop!";

	static final String HOUSE_STYLE = "House style: end every note with: " + SIGN_OFF;

	/**
	 * House style: the copywriter's instructions gain the shop's sign-off, in the system
	 * message (the last message stays the user's request).
	 * @param request the copywriter's request about to be sent
	 * @return the request with the house style in its instructions
	 */
	@ModifyModelRequest
	public ModelRequestPayload signOff(ModelRequestPayload request) {
		List<Message> messages = new ArrayList<>(request.messages());
		for (int i = 0; i < messages.size(); i++) {
			if (messages.get(i) instanceof SystemMessage system) {
				String instructions = (system.getText() != null) ? system.getText() + "\n" : "";
				messages.set(i, system.mutate().text(instructions + HOUSE_STYLE).build());
				return request.withMessages(messages);
			}
		}
		messages.add(0, new SystemMessage(HOUSE_STYLE));
		return request.withMessages(messages);
	}

}
