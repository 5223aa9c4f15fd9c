package io.mantlehooks.ai.model;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;

import org.springframework.ai.chat.observation.ChatModelObservationContext;

/**
 * Checks model calls through Spring AI's model observations, for {@code ChatModel} beans
 * that cannot be proxied by class (final classes such as {@code OpenAiChatModel}). Active
 * when the application has an {@code ObservationRegistry}: Spring Boot's observation
 * module, which the starter brings (Actuator or not), makes one and registers handler
 * beans. {@link UnhookedCallCoverageCheck} adds it to that registry once the context is
 * up, or says that there is none.
 */
final class UnhookedCallObservationHandler implements ObservationHandler<ChatModelObservationContext> {

	private final UnhookedCallDetector detector;

	/**
	 * Create the handler.
	 * @param detector what decides about unhooked calls
	 */
	UnhookedCallObservationHandler(UnhookedCallDetector detector) {
		this.detector = detector;
	}

	@Override
	public void onStart(ChatModelObservationContext context) {
		if (!UnhookedCallDetector.alreadyChecked()) {
			this.detector.check(context.getOperationMetadata().provider(), UnhookedCallDetector.inTurnOnThread());
		}
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof ChatModelObservationContext;
	}

}
