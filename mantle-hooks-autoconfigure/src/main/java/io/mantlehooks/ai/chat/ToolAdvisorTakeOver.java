package io.mantlehooks.ai.chat;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.ToolAdvisor;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.util.ReflectionUtils;

/**
 * The starter's tool loop and the tool advisor of the application's chain. Spring AI's
 * {@code ChatClient} adds its {@link ToolCallingAdvisor} to every chain that has no
 * {@link ToolAdvisor}, built from the application's {@code ToolCallingAdvisor.Builder}
 * (where {@code spring.ai.chat.client.tool-calling.*} and a tuned
 * {@link ToolCallingManager} go), and an application may add one of its own. When the
 * hooks need the tool loop, the starter's loop takes that advisor over: it executes the
 * tools through that advisor's {@code ToolCallingManager}, and leaves the advisor out of
 * the chain each model call goes through, so that no tool runs past the tool hooks. An
 * advisor that sits before the loop is left where it is: it sees the loop's final reply,
 * which calls no tool, and passes it on.
 * <p>
 * What the taken-over advisor would do in its own {@code do...} methods (a subclass's)
 * does not run; the first turn through such a subclass logs it. Another kind of
 * {@link ToolAdvisor} inside the loop stays in the chain; if it executes tool calls
 * itself, they do not pass the tool hooks, which the first turn through it logs too.
 */
final class ToolAdvisorTakeOver {

	private static final Log logger = LogFactory.getLog(ToolAdvisorTakeOver.class);

	/**
	 * Request-context key: the chain's Spring AI tool advisor, as the turn advisor found
	 * it. An advisor that sits before the loop hands the loop a copy of the chain that no
	 * longer holds it.
	 */
	static final String KEY = "mantle.tool_advisor";

	/**
	 * The manager of a Spring AI tool advisor: a protected field, read once per turn, as
	 * Spring AI offers no accessor for it.
	 */
	private static final @Nullable Field MANAGER = ReflectionUtils.findField(ToolCallingAdvisor.class,
			"toolCallingManager", ToolCallingManager.class);

	private static final Set<String> LOOP_METHODS = Set.of("doInitializeLoop", "doBeforeCall", "doAfterCall",
			"doFinalizeLoop", "doGetNextInstructionsForToolCall", "doInitializeLoopStream", "doBeforeStream",
			"doAfterStream", "doFinalizeLoopStream", "doGetNextInstructionsForToolCallStream");

	private final ToolCallingManager defaultManager;

	/** The advisor classes already reported, each once. */
	private final Set<Class<?>> reported = ConcurrentHashMap.newKeySet();

	static {
		if (MANAGER != null) {
			ReflectionUtils.makeAccessible(MANAGER);
		}
	}

	ToolAdvisorTakeOver(ToolCallingManager defaultManager) {
		this.defaultManager = defaultManager;
	}

	/**
	 * Return the request with the chain's Spring AI tool advisor in its context, for the
	 * loop further down; the request itself when the chain has none.
	 * @param request the request the turn advisor passes on
	 * @param advisors the whole chain, as the turn advisor sees it
	 * @return the request to pass on
	 */
	static ChatClientRequest mark(ChatClientRequest request, List<? extends Advisor> advisors) {
		for (Advisor advisor : advisors) {
			if (advisor instanceof ToolCallingAdvisor) {
				return request.mutate().context(KEY, advisor).build();
			}
		}
		return request;
	}

	/**
	 * Return what a turn's tool loop does with the tool advisors of its chain.
	 * @param request the request the loop was given
	 * @param advisors the chain's advisors, outermost first
	 * @param loop the starter's tool loop in that chain
	 * @return the loop's tools: the manager to run them with and the advisor to leave out
	 */
	Tools of(ChatClientRequest request, List<? extends Advisor> advisors, Advisor loop) {
		int at = advisors.indexOf(loop);
		ToolCallingAdvisor takenOver = (request.context().get(KEY) instanceof ToolCallingAdvisor marked) ? marked
				: null;
		for (int i = 0; i < advisors.size(); i++) {
			Advisor advisor = advisors.get(i);
			if (advisor instanceof ToolCallingAdvisor spring) {
				takenOver = spring;
			}
			else if (advisor instanceof ToolAdvisor other && i > at && other != loop) {
				reportInside(other);
			}
		}
		if (takenOver == null) {
			return new Tools(this.defaultManager, null);
		}
		reportSubclass(takenOver);
		// one before the loop ran already: it only passes the loop's final reply on
		int position = advisors.indexOf(takenOver);
		return new Tools(managerOf(takenOver), (position > at) ? takenOver : null);
	}

	private ToolCallingManager managerOf(ToolCallingAdvisor advisor) {
		Object manager = (MANAGER != null) ? ReflectionUtils.getField(MANAGER, advisor) : null;
		return (manager instanceof ToolCallingManager toolCallingManager) ? toolCallingManager : this.defaultManager;
	}

	private void reportSubclass(ToolCallingAdvisor advisor) {
		Class<?> type = advisor.getClass();
		if (type == ToolCallingAdvisor.class || !this.reported.add(type)) {
			return;
		}
		List<String> overridden = new ArrayList<>();
		for (Method method : type.getDeclaredMethods()) {
			if (LOOP_METHODS.contains(method.getName())) {
				overridden.add(method.getName());
			}
		}
		if (!overridden.isEmpty()) {
			logger.warn("The tool advisor " + type.getName() + " is taken over by the mantle-hooks tool loop, so that "
					+ "every tool call passes the tool hooks: its tools run through its ToolCallingManager, but its "
					+ overridden + " do not run");
		}
	}

	private void reportInside(ToolAdvisor advisor) {
		if (this.reported.add(advisor.getClass())) {
			logger.warn("The tool advisor '" + advisor.getName() + "' (" + advisor.getClass().getName()
					+ ") sits inside the mantle-hooks tool loop (order " + advisor.getOrder() + " >= "
					+ MantleToolLoopAdvisor.ORDER + "): tool calls it executes itself do not pass the tool hooks. "
					+ "Let Spring AI's ToolCallingAdvisor (which the loop takes over) run the tools, or order this "
					+ "advisor before the loop.");
		}
	}

	/**
	 * The tools of one turn's loop.
	 *
	 * @param manager what executes the tool calls
	 * @param excluded the application's tool advisor to leave out of each model call's
	 * chain, {@code null} when none sits inside the loop
	 */
	record Tools(ToolCallingManager manager, @Nullable Advisor excluded) {

		/**
		 * Return the rest of the chain after the loop for one model call: a fresh copy,
		 * as a chain is spent once called, without the taken-over advisor.
		 */
		CallAdvisorChain roundChain(CallAdvisorChain chain, CallAdvisor loop) {
			CallAdvisorChain copy = chain.copy(loop);
			if (this.excluded == null) {
				return copy;
			}
			return DefaultAroundAdvisorChain.builder(chain.getObservationRegistry())
				.pushAll(without(copy.getCallAdvisors()))
				.build();
		}

		/**
		 * Return the rest of the chain after the loop for one streamed model call.
		 */
		StreamAdvisorChain roundChain(StreamAdvisorChain chain, StreamAdvisor loop) {
			StreamAdvisorChain copy = chain.copy(loop);
			if (this.excluded == null) {
				return copy;
			}
			return DefaultAroundAdvisorChain.builder(chain.getObservationRegistry())
				.pushAll(without(copy.getStreamAdvisors()))
				.build();
		}

		private List<Advisor> without(List<? extends Advisor> advisors) {
			List<Advisor> kept = new ArrayList<>(advisors);
			kept.remove(this.excluded);
			return kept;
		}

	}

}
