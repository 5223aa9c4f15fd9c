package io.mantlehooks.ai.chat;

import io.mantlehooks.HookPoint;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Says at startup, at INFO and naming the hook, what holds streamed replies back and why:
 * a developer who streams should not have to find out from a slow first token.
 */
final class BufferingReport {

	private static final Log logger = LogFactory.getLog(BufferingReport.class);

	private BufferingReport() {
	}

	static void log(HookRegistry registry) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		log(registry.everyAgent(), "");
		for (String agent : registry.agents()) {
			log(registry.forAgent(agent), "In agent '" + agent + "': ");
		}
	}

	private static void log(HookRegistry.HookSet hooks, String agent) {
		HookMethod outgoing = hooks.modifier(HookPoint.OUTGOING_TEXT);
		HookMethod response = hooks.modifier(HookPoint.MODEL_RESPONSE);
		HookMethod toolCall = hooks.modifier(HookPoint.TOOL_CALL);
		if (response != null) {
			logger.info(
					agent + "Streamed replies are held until the model's completion is whole: the model-response hook '"
							+ response.name() + "' needs the whole completion (it may retry it)");
		}
		if (outgoing != null && outgoing.streamMode() == StreamMode.WHOLE) {
			logger.info(agent + "Streamed replies are held until they are complete: the outgoing-text hook '"
					+ outgoing.name()
					+ "' sees whole replies; @ModifyOutgoingText(stream = StreamMode.SENTENCES) lets it rewrite them "
					+ "sentence by sentence while they stream");
		}
		if (toolCall == null || response != null || (outgoing != null && outgoing.streamMode() == StreamMode.WHOLE)) {
			return;
		}
		if (outgoing != null) {
			logger.info(agent + "With the tool-call hook '" + toolCall.name()
					+ "', streamed replies still go out sentence by sentence through '" + outgoing.name()
					+ "'; the text of a round whose tool batch preflight retries, closes or pauses is taken back "
					+ "(a chunk marked mantle.retracted replaces the reply so far)");
		}
		else {
			logger.info(agent + "Streamed replies are held until they are complete: the tool-call hook '"
					+ toolCall.name() + "' may discard a batch with the text that came with it");
		}
	}

}
