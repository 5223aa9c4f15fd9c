package io.mantlehooks.bench;

import java.util.List;

import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;

/**
 * Advisors that do nothing but pass the turn on: what Spring AI's chain itself charges
 * for each advisor, the floor under any hook advisor.
 */
final class PassThroughAdvisors implements CallAdvisor, StreamAdvisor {

	private final String name;

	private final int order;

	private PassThroughAdvisors(String name, int order) {
		this.name = name;
		this.order = order;
	}

	/**
	 * Return two pass-through advisors, as many as the hook advisors add to Spring AI's
	 * chain (turn and model call; the tool loop replaces Spring AI's tool advisor).
	 */
	static List<Advisor> two() {
		return List.of(new PassThroughAdvisors("first", 0), new PassThroughAdvisors("second", 1));
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		return chain.nextCall(request);
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return chain.nextStream(request);
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

}
