package io.mantlehooks.observation;

import java.time.Duration;

import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a {@code mantle.hook} observation knows of its invocation.
 */
public class HookObservationContext extends Observation.Context {

	private final String hookName;

	private final HookPoint point;

	private final String lane;

	private final String turnId;

	private String outcome = "unknown";

	private String agent = MantleHooks.DEFAULT_AGENT;

	private @Nullable Object input;

	private @Nullable Object output;

	private Duration queued = Duration.ZERO;

	/**
	 * Create a context.
	 * @param hookName the hook, {@code beanName.methodName}
	 * @param point the point it serves
	 * @param lane {@code observe} or {@code modify}
	 * @param turnId the turn's id, {@code ""} outside a turn
	 */
	public HookObservationContext(String hookName, HookPoint point, String lane, String turnId) {
		Assert.hasText(hookName, "'hookName' must not be empty");
		Assert.notNull(point, "'point' must not be null");
		Assert.hasText(lane, "'lane' must not be empty");
		Assert.notNull(turnId, "'turnId' must not be null");
		this.hookName = hookName;
		this.point = point;
		this.lane = lane;
		this.turnId = turnId;
	}

	/**
	 * Return the hook's name.
	 * @return {@code beanName.methodName}
	 */
	public String getHookName() {
		return this.hookName;
	}

	/**
	 * Return the point the hook serves.
	 * @return the point
	 */
	public HookPoint getPoint() {
		return this.point;
	}

	/**
	 * Return the lane.
	 * @return {@code observe} or {@code modify}
	 */
	public String getLane() {
		return this.lane;
	}

	/**
	 * Return the turn's id.
	 * @return the id, {@code ""} outside a turn
	 */
	public String getTurnId() {
		return this.turnId;
	}

	/**
	 * Return the agent whose hooks ran for: the turn's agent.
	 * @return the agent's name, {@code default} when the client named none
	 */
	public String getAgent() {
		return this.agent;
	}

	/**
	 * Set the agent whose hooks ran for: the turn's agent.
	 * @param agent the agent's name
	 */
	public void setAgent(String agent) {
		Assert.hasText(agent, "'agent' must not be empty");
		this.agent = agent;
	}

	/**
	 * Return the outcome, set when the invocation ends.
	 * @return the outcome, {@code unknown} before
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/**
	 * Set the outcome.
	 * @param outcome the outcome's tag value
	 */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

	/**
	 * Return the payload the hook was given. Payloads may hold personal data: a handler
	 * should not keep or show them unless the application chose so.
	 * @return the payload, {@code null} for an invocation that never ran
	 */
	public @Nullable Object getInput() {
		return this.input;
	}

	/**
	 * Set the payload the hook was given.
	 * @param input the payload
	 */
	public void setInput(@Nullable Object input) {
		this.input = input;
	}

	/**
	 * Return the payload a modify hook proceeded with, identity restored.
	 * @return the payload, {@code null} for observers and for modify hooks that did not
	 * proceed
	 */
	public @Nullable Object getOutput() {
		return this.output;
	}

	/**
	 * Set the payload a modify hook proceeded with.
	 * @param output the payload
	 */
	public void setOutput(@Nullable Object output) {
		this.output = output;
	}

	/**
	 * Return how long the invocation waited for a thread before its method started: the
	 * machine's time, never counted against the hook's timeout.
	 * @return the wait, {@link Duration#ZERO} for an invocation that never ran
	 */
	public Duration getQueued() {
		return this.queued;
	}

	/**
	 * Set how long the invocation waited for a thread before its method started.
	 * @param queued the wait
	 */
	public void setQueued(Duration queued) {
		Assert.notNull(queued, "'queued' must not be null");
		this.queued = queued;
	}

}
