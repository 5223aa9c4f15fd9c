package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.List;

import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.Turn;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.client.advisor.api.BaseChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.util.ClassUtils;

/**
 * A Spring AI {@link BaseAdvisor} whose {@code before} and {@code after} run with the
 * request's turn current. In a stream, {@code BaseAdvisor} runs them on its scheduler
 * (bounded-elastic), where no thread-local of the caller exists; a
 * {@code QuestionAnswerAdvisor} searches its vector store there, and the knowledge hooks
 * must know whose turn the search is for. Everything else (scheduler, name, order, the
 * stream itself) is the advisor's own.
 */
final class TurnBoundAdvisor implements BaseAdvisor {

	private static final ClassValue<Boolean> USES_DEFAULT_STREAM = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			return ClassUtils.getMethod(type, "adviseStream", ChatClientRequest.class, StreamAdvisorChain.class)
				.getDeclaringClass() == BaseAdvisor.class;
		}

	};

	private final BaseAdvisor advisor;

	/**
	 * Whether the advisor is a chat memory whose stream is aggregated here, so that a
	 * retracted draft is not stored as part of the reply.
	 */
	private final boolean memory;

	/** The turn the chain was entered with: bound advisors are made for each turn. */
	private volatile @Nullable Turn turn;

	private TurnBoundAdvisor(BaseAdvisor advisor, boolean memory) {
		this.advisor = advisor;
		this.memory = memory;
	}

	/**
	 * Return the chain after {@code self} with each {@link BaseAdvisor} that streams the
	 * way Spring AI's default does bound to the turn; the chain itself when it has none.
	 * Advisors that stream their own way are left as they are.
	 * @param chain the chain the advisor was called with
	 * @param self the advisor the returned chain continues after
	 * @return the chain to continue with
	 */
	static StreamAdvisorChain bind(StreamAdvisorChain chain, StreamAdvisor self) {
		return bind(chain, self, false);
	}

	/**
	 * Return the chain after {@code self} as
	 * {@link #bind(StreamAdvisorChain, StreamAdvisor)} does; when the stream may retract,
	 * each {@link BaseChatMemoryAdvisor} is bound too, and stores only what the user
	 * finally received: a retraction replaces the text streamed before it, in memory as
	 * on the client.
	 * @param chain the chain the advisor was called with
	 * @param self the advisor the returned chain continues after
	 * @param retracts whether a chunk may retract what was streamed before it
	 * @return the chain to continue with
	 */
	static StreamAdvisorChain bind(StreamAdvisorChain chain, StreamAdvisor self, boolean retracts) {
		List<StreamAdvisor> advisors = chain.getStreamAdvisors();
		if (!advisors.contains(self)) {
			return chain;
		}
		List<Advisor> bound = new ArrayList<>(advisors.size());
		boolean any = false;
		for (StreamAdvisor advisor : advisors) {
			if (retracts && advisor instanceof BaseChatMemoryAdvisor memory) {
				bound.add(new TurnBoundAdvisor(memory, true));
				any = true;
			}
			else if (advisor instanceof BaseAdvisor base && !(advisor instanceof TurnBoundAdvisor)
					&& USES_DEFAULT_STREAM.get(advisor.getClass())) {
				bound.add(new TurnBoundAdvisor(base, false));
				any = true;
			}
			else {
				bound.add(advisor);
			}
		}
		if (!any) {
			return chain;
		}
		return DefaultAroundAdvisorChain.builder(chain.getObservationRegistry()).pushAll(bound).build().copy(self);
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		if (!this.memory) {
			return BaseAdvisor.super.adviseStream(request, chain);
		}
		// as Spring AI's memory advisors stream: before on the advisor's scheduler,
		// after once with the aggregated reply, when the stream completes
		return Flux.defer(() -> {
			RetractableReply reply = new RetractableReply();
			return Mono.just(request)
				.publishOn(getScheduler())
				.map((entered) -> before(entered, chain))
				.flatMapMany(chain::nextStream)
				.doOnNext(reply::add)
				.doOnComplete(() -> after(reply.aggregated(), chain));
		});
	}

	@Override
	public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
		Turn turn = Turn.of(request);
		if (turn != null) {
			this.turn = turn;
		}
		if (turn == null || CurrentTurn.get() == turn) {
			return this.advisor.before(request, chain);
		}
		try (CurrentTurn.Scope scope = CurrentTurn.open(turn)) {
			return this.advisor.before(request, chain);
		}
	}

	@Override
	public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
		Turn turn = turnOf(response);
		if (turn == null) {
			// a response without the engine's keys (an advisor of the application made
			// its own): the turn is the one this advisor was entered with
			turn = this.turn;
		}
		if (turn == null || CurrentTurn.get() == turn) {
			return this.advisor.after(response, chain);
		}
		try (CurrentTurn.Scope scope = CurrentTurn.open(turn)) {
			return this.advisor.after(response, chain);
		}
	}

	private static @Nullable Turn turnOf(ChatClientResponse response) {
		return (response.context().get(Turn.CONTEXT_KEY) instanceof Turn turn) ? turn : null;
	}

	@Override
	public Scheduler getScheduler() {
		return this.advisor.getScheduler();
	}

	@Override
	public String getName() {
		return this.advisor.getName();
	}

	@Override
	public int getOrder() {
		return this.advisor.getOrder();
	}

	@Override
	public String toString() {
		return this.advisor.toString();
	}

}
