package io.mantlehooks.ai;

import java.util.List;

import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.HookRunner;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.util.Assert;

/**
 * Adds the hook advisors to a {@link ChatClient.Builder}. Spring Boot applies it to the
 * auto-configured builder; for a {@code ChatClient} built by hand, call
 * {@link #customize(ChatClient.Builder)} or pass {@link #getAdvisors()} to
 * {@code defaultAdvisors(...)}.
 * <p>
 * Order in the chain: {@link MantleTurnAdvisor} (outside chat memory), chat memory, then
 * {@link MantleToolLoopAdvisor} (the chain's tool advisor), RAG advisors, and
 * {@link MantleModelCallAdvisor} right before the model.
 */
public final class MantleChatClientCustomizer implements ChatClientBuilderCustomizer {

	private final List<Advisor> advisors;

	/**
	 * Create the customizer.
	 * @param hooks the hook runner
	 * @param responses the named replies
	 * @param toolCallingManager what executes tool calls
	 * @param maxIterations the cap on model calls per turn
	 */
	public MantleChatClientCustomizer(HookRunner hooks, HookResponses responses, ToolCallingManager toolCallingManager,
			int maxIterations) {
		Assert.notNull(hooks, "'hooks' must not be null");
		Assert.notNull(responses, "'responses' must not be null");
		Assert.notNull(toolCallingManager, "'toolCallingManager' must not be null");
		Assert.isTrue(maxIterations > 0, "'maxIterations' must be positive");
		OutgoingTextStage outgoing = new OutgoingTextStage(hooks, responses);
		MantleModelCallAdvisor modelCall = new MantleModelCallAdvisor(hooks, responses, maxIterations);
		this.advisors = List.of(new MantleTurnAdvisor(hooks, responses, outgoing),
				new MantleToolLoopAdvisor(new ToolStage(hooks, toolCallingManager), responses, outgoing, modelCall),
				modelCall);
	}

	/**
	 * Return the advisors, outermost first.
	 * @return the turn, tool-loop and model-call advisors
	 */
	public List<Advisor> getAdvisors() {
		return this.advisors;
	}

	@Override
	public void customize(ChatClient.Builder chatClientBuilder) {
		chatClientBuilder.defaultAdvisors(this.advisors);
	}

}
