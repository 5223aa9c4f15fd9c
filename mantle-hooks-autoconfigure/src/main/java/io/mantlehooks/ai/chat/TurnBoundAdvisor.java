package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.List;

import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.Turn;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
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

	private TurnBoundAdvisor(BaseAdvisor advisor) {
		this.advisor = advisor;
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
		List<StreamAdvisor> advisors = chain.getStreamAdvisors();
		if (!advisors.contains(self)) {
			return chain;
		}
		List<Advisor> bound = new ArrayList<>(advisors.size());
		boolean any = false;
		for (StreamAdvisor advisor : advisors) {
			if (advisor instanceof BaseAdvisor base && !(advisor instanceof TurnBoundAdvisor)
					&& USES_DEFAULT_STREAM.get(advisor.getClass())) {
				bound.add(new TurnBoundAdvisor(base));
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
	public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
		Turn turn = Turn.of(request);
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
