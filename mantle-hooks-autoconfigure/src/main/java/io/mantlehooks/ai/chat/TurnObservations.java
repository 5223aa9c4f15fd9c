package io.mantlehooks.ai.chat;

import java.util.Objects;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.observation.DefaultTurnObservationConvention;
import io.mantlehooks.observation.TurnObservationContext;
import io.mantlehooks.observation.TurnObservationConvention;
import io.mantlehooks.observation.TurnObservationDocumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientResponse;

/**
 * Reports each turn as a {@code mantle.turn} observation whose outcome is the response's
 * {@code mantle.outcome} ({@code completed} when none), {@code cancelled} or
 * {@code error}. With the no-op registry nothing is created.
 */
final class TurnObservations {

	static final TurnObservations NONE = new TurnObservations(ObservationRegistry.NOOP, null);

	private static final TurnObservationConvention DEFAULT_CONVENTION = new DefaultTurnObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable TurnObservationConvention convention;

	TurnObservations(ObservationRegistry registry, @Nullable TurnObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	/**
	 * Start the observation of a turn.
	 * @param parent the observation the turn runs under; {@code null} for the current one
	 * @return the started observation, {@code null} when nothing is observed
	 */
	@Nullable Observation start(Turn turn, @Nullable Observation parent) {
		if (this.registry.isNoop()) {
			return null;
		}
		Observation observation = TurnObservationDocumentation.MANTLE_TURN.observation(this.convention,
				DEFAULT_CONVENTION, () -> context(turn), this.registry);
		if (observation.isNoop()) {
			// the registry's predicates keep mantle.turn out
			return null;
		}
		if (parent != null && !parent.isNoop()) {
			observation.parentObservation(parent);
		}
		return observation.start();
	}

	private static TurnObservationContext context(Turn turn) {
		TurnObservationContext context = new TurnObservationContext(turn.id(), turn.channel().name());
		context.setSenderId(turn.senderId());
		context.setAgent(turn.agent());
		// the conversation the transcript files the turn under, so tools can look it up
		context.setConversationId(TranscriptRecorder.conversationOf(turn));
		return context;
	}

	/**
	 * Stop a turn's observation with the outcome its response reports.
	 */
	static void stop(@Nullable Observation observation, @Nullable ChatClientResponse response) {
		if (observation != null) {
			if (response != null && response.context().get(MantleHooks.APPROVAL_ID) instanceof String approvalId
					&& observation.getContext() instanceof TurnObservationContext context) {
				context.setApprovalId(approvalId);
			}
			stop(observation, outcomeOf(response), null);
		}
	}

	/**
	 * Stop a turn's observation with an outcome.
	 * @param error what ended the turn, for {@code error}
	 */
	static void stop(@Nullable Observation observation, String outcome, @Nullable Throwable error) {
		if (observation == null) {
			return;
		}
		if (observation.getContext() instanceof TurnObservationContext context) {
			context.setOutcome(outcome);
		}
		if (error != null) {
			observation.error(error);
		}
		observation.stop();
	}

	static String outcomeOf(@Nullable ChatClientResponse response) {
		Object outcome = (response != null) ? response.context().get(MantleHooks.OUTCOME) : null;
		return (outcome != null) ? Objects.toString(outcome) : TurnObservationContext.COMPLETED;
	}

}
