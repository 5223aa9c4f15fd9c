package io.mantlehooks.bench;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.core.Ordered;

/**
 * What a developer writes without mantle-hooks: a {@code CallAdvisor} that rewrites the
 * prompt the way {@link BenchHooks.BlockingRequestHook} does.
 */
final class HandWrittenRewriteAdvisor implements CallAdvisor {

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		Prompt prompt = request.prompt().mutate().messages(BenchHooks.redact(request.prompt().getInstructions())).build();
		return chain.nextCall(new ChatClientRequest(prompt, request.context()));
	}

	@Override
	public String getName() {
		return "handWrittenRewrite";
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE - 1;
	}

}
