package io.mantlehooks.ai;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.TurnStartedPayload;
import io.mantlehooks.TurnStatus;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.HookFailure;
import io.mantlehooks.runtime.HookRunner;
import io.mantlehooks.runtime.ModifyResult;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.core.Ordered;

/**
 * The outermost hook advisor: runs the incoming-message hooks before anything else (so
 * chat memory stores the rewrite), fires turn started/finished as a pair, answers a
 * rejected message without calling the model (and without touching memory), and puts
 * {@code mantle.turn_id}, {@code mantle.outcome} and {@code mantle.reason} in the
 * response context.
 */
public final class MantleTurnAdvisor implements CallAdvisor, StreamAdvisor {

	/** Outside chat memory ({@link Advisor#DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER}). */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	private static final String DISCARDED = TurnState.DISCARDED;

	private final HookRunner hooks;

	private final HookResponses responses;

	private final OutgoingTextStage outgoing;

	MantleTurnAdvisor(HookRunner hooks, HookResponses responses, OutgoingTextStage outgoing) {
		this.hooks = hooks;
		this.responses = responses;
		this.outgoing = outgoing;
	}

	@Override
	public String getName() {
		return "mantleTurn";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		Start start = start(request, CallerContext.capture());
		if (start.reply() != null) {
			return start.reply();
		}
		TurnState state = start.state();
		ChatClientResponse response;
		try (CurrentTurn.Scope scope = CurrentTurn.open(state)) {
			response = chain.nextCall(start.request());
		}
		catch (RuntimeException | Error ex) {
			finished(state, TurnStatus.ERROR);
			throw ex;
		}
		finished(state, TurnStatus.COMPLETED);
		return withOutcome(response, state);
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		CallerContext caller = CallerContext.capture();
		return Mono.fromCallable(() -> caller.call(() -> start(request, caller)))
			.subscribeOn(Schedulers.boundedElastic())
			.flatMapMany((start) -> {
				if (start.reply() != null) {
					return Flux.just(start.reply());
				}
				TurnState state = start.state();
				return CurrentTurnPropagation.subscribeWithin(state, chain.nextStream(start.request()))
					.map((chunk) -> withOutcome(chunk, state))
					.doFinally((signal) -> state.caller().run(() -> finished(state, status(signal))));
			});
	}

	private static TurnStatus status(SignalType signal) {
		return switch (signal) {
			case ON_COMPLETE -> TurnStatus.COMPLETED;
			case CANCEL -> TurnStatus.CANCELLED;
			default -> TurnStatus.ERROR;
		};
	}

	/**
	 * Run the incoming-message hooks, then start the turn. A rejection (or a fail-closed
	 * hook) ends the turn before it starts: the reply passes the outgoing-text hooks, and
	 * the turn-started/finished hooks do not fire.
	 */
	private Start start(ChatClientRequest request, CallerContext caller) {
		TurnState state = TurnState.fromParams(request.context(), caller);
		ChatClientRequest turnRequest = request.mutate().context(TurnState.CONTEXT_KEY, state).build();
		List<Message> messages = turnRequest.prompt().getInstructions();
		int userIndex = lastUserMessage(messages);
		if (userIndex >= 0) {
			UserMessage message = withoutDiscardedFlag((UserMessage) messages.get(userIndex));
			String text = message.getText();
			if (this.hooks.hasHooks(HookPoint.INCOMING_MESSAGE)) {
				IncomingMessagePayload payload = new IncomingMessagePayload(text, state.messageId(), state.senderId(),
						state.call(), state.channel());
				this.hooks.observe(HookPoint.INCOMING_MESSAGE, payload);
				ModifyResult<IncomingMessagePayload> result = this.hooks.modify(HookPoint.INCOMING_MESSAGE, payload);
				if (result instanceof ModifyResult.Signalled<IncomingMessagePayload> signalled
						&& signalled.signal() instanceof HookRejection rejection) {
					state.outcome(Outcomes.REJECTED, rejection.reason());
					return rejected(turnRequest, state, rejection.responseMessage().orElse(null));
				}
				if (result instanceof ModifyResult.Failed<IncomingMessagePayload> failed
						&& failed.failure().kind() == HookFailure.Kind.INTERRUPTED) {
					// the caller gave up (a cancelled stream): nobody will receive a
					// reply
					state.outcome(Outcomes.HOOK_ERROR, "interrupted in " + failed.failure().hookName());
					return new Start(turnRequest, state, withOutcome(
							ChatResponses.withoutGenerations(ChatResponses.textResponse(turnRequest, "")), state));
				}
				if (result instanceof ModifyResult.Failed<IncomingMessagePayload> failed) {
					state.outcome(Outcomes.HOOK_ERROR,
							failed.failure().kind().name().toLowerCase() + " in " + failed.failure().hookName());
					return rejected(turnRequest, state, null);
				}
				if (result instanceof ModifyResult.Proceed<IncomingMessagePayload> proceed) {
					text = proceed.payload().text();
				}
			}
			if (message != messages.get(userIndex) || !text.equals(message.getText())) {
				List<Message> rewritten = new ArrayList<>(messages);
				rewritten.set(userIndex, message.mutate().text(text).build());
				turnRequest = turnRequest.mutate()
					.prompt(turnRequest.prompt().mutate().messages(rewritten).build())
					.build();
			}
		}
		this.hooks.observe(HookPoint.TURN_STARTED,
				new TurnStartedPayload(state.voice(), state.turnId(), state.senderId(), state.call(), state.channel()));
		return new Start(turnRequest, state, null);
	}

	private Start rejected(ChatClientRequest request, TurnState state, @Nullable String responseName) {
		String reply = this.outgoing.process(state,
				this.responses.resolve(responseName, HookResponses.INCOMING_MESSAGE_REJECTED));
		ChatClientResponse response = ChatResponses.textResponse(request, (reply != null) ? reply : "");
		if (reply == null) {
			response = ChatResponses.withoutGenerations(response);
		}
		return new Start(request, state, withOutcome(response, state));
	}

	private void finished(TurnState state, TurnStatus status) {
		this.hooks.observe(HookPoint.TURN_FINISHED,
				new TurnFinishedPayload(status, state.turnId(), state.senderId(), state.call(), state.channel()));
	}

	private static int lastUserMessage(List<Message> messages) {
		for (int i = messages.size() - 1; i >= 0; i--) {
			if (messages.get(i) instanceof UserMessage) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Only the engine may mark a message discarded: a {@code discarded} key that arrives
	 * with the message is removed before hooks run.
	 */
	private static UserMessage withoutDiscardedFlag(UserMessage message) {
		if (!message.getMetadata().containsKey(DISCARDED)) {
			return message;
		}
		Map<String, Object> metadata = new LinkedHashMap<>(message.getMetadata());
		metadata.remove(DISCARDED);
		return message.mutate().metadata(metadata).build();
	}

	private static ChatClientResponse withOutcome(ChatClientResponse response, TurnState state) {
		ChatClientResponse.Builder builder = response.mutate().context(MantleHooks.TURN_ID, state.turnId());
		String outcome = state.outcome();
		String reason = state.reason();
		if (outcome != null && reason != null) {
			builder.context(MantleHooks.OUTCOME, outcome).context(MantleHooks.REASON, reason);
		}
		return builder.build();
	}

	private record Start(ChatClientRequest request, TurnState state, @Nullable ChatClientResponse reply) {
	}

}
