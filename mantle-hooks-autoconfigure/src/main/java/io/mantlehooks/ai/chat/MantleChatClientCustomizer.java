package io.mantlehooks.ai.chat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookProblem;
import io.mantlehooks.ai.approval.ToolApprovals;
import io.mantlehooks.ai.tool.ToolBatch;
import io.mantlehooks.observation.TurnObservationConvention;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.transcript.TranscriptStore;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.util.Assert;

/**
 * Adds the hook advisors a {@link ChatClient.Builder} needs for the application's hooks,
 * and none when there are no hooks. Spring Boot applies it to the auto-configured
 * builder; for a {@code ChatClient} built by hand, call
 * {@link #customize(ChatClient.Builder)} or pass {@link #getAdvisors()} to
 * {@code defaultAdvisors(...)}.
 * <p>
 * Order in the chain: {@link MantleTurnAdvisor} (outside chat memory), chat memory, then
 * {@link MantleToolLoopAdvisor} (the chain's tool advisor), RAG advisors, and
 * {@link MantleModelCallAdvisor} right before the model.
 * <p>
 * A builder configured while singletons are still being created (a {@code ChatClient}
 * built in a constructor) gets the advisors for the hooks that the bean definitions
 * declare; if discovery later finds hooks that builder does not run, startup fails and
 * says why.
 */
public final class MantleChatClientCustomizer implements ChatClientBuilderCustomizer {

	private final Supplier<Set<HookPoint>> pointsWithHooks;

	private final HookRegistry registry;

	private final List<Advisor> turnOnly;

	private final List<Advisor> full;

	private final AtomicReference<AdvisorPlan> earliestPlan = new AtomicReference<>();

	/**
	 * What approvals (the tool loop) and the transcript (the turn) need, hooks or not.
	 */
	/** The default of {@code mantle.hooks.streaming.max-segment-length}. */
	public static final int DEFAULT_MAX_SEGMENT_LENGTH = 400;

	private final AdvisorPlan floor;

	/**
	 * Create the customizer.
	 * @param hooks the hook runner
	 * @param responses the named replies
	 * @param toolCallingManager what executes tool calls
	 * @param maxIterations the cap on model calls per turn
	 * @param pointsWithHooks the points that have hooks: exact once discovery ran,
	 * predicted from bean definitions before
	 */
	public MantleChatClientCustomizer(HookRunner hooks, HookResponses responses, ToolCallingManager toolCallingManager,
			int maxIterations, Supplier<Set<HookPoint>> pointsWithHooks) {
		this(hooks, responses, toolCallingManager, maxIterations, pointsWithHooks, ObservationRegistry.NOOP, null, null,
				null);
	}

	/**
	 * Create the customizer, reporting each turn as a {@code mantle.turn} observation.
	 * @param hooks the hook runner
	 * @param responses the named replies
	 * @param toolCallingManager what executes tool calls
	 * @param maxIterations the cap on model calls per turn
	 * @param pointsWithHooks the points that have hooks: exact once discovery ran,
	 * predicted from bean definitions before
	 * @param observationRegistry where turns are observed
	 * @param convention the convention of those observations, {@code null} for the
	 * default
	 * @param approvals which tool calls wait for approval, {@code null} for none
	 * @param transcript where the conversation transcript goes, {@code null} for none
	 */
	public MantleChatClientCustomizer(HookRunner hooks, HookResponses responses, ToolCallingManager toolCallingManager,
			int maxIterations, Supplier<Set<HookPoint>> pointsWithHooks, ObservationRegistry observationRegistry,
			@Nullable TurnObservationConvention convention, @Nullable ToolApprovals approvals,
			@Nullable TranscriptStore transcript) {
		this(hooks, responses, toolCallingManager, maxIterations, pointsWithHooks, observationRegistry, convention,
				approvals, transcript, DEFAULT_MAX_SEGMENT_LENGTH);
	}

	/**
	 * Create the customizer, reporting each turn as a {@code mantle.turn} observation.
	 * @param hooks the hook runner
	 * @param responses the named replies
	 * @param toolCallingManager what executes tool calls
	 * @param maxIterations the cap on model calls per turn
	 * @param pointsWithHooks the points that have hooks: exact once discovery ran,
	 * predicted from bean definitions before
	 * @param observationRegistry where turns are observed
	 * @param convention the convention of those observations, {@code null} for the
	 * default
	 * @param approvals which tool calls wait for approval, {@code null} for none
	 * @param transcript where the conversation transcript goes, {@code null} for none
	 * @param maxSegmentLength the longest segment a sentence-by-sentence outgoing-text
	 * hook waits for ({@code mantle.hooks.streaming.max-segment-length})
	 */
	public MantleChatClientCustomizer(HookRunner hooks, HookResponses responses, ToolCallingManager toolCallingManager,
			int maxIterations, Supplier<Set<HookPoint>> pointsWithHooks, ObservationRegistry observationRegistry,
			@Nullable TurnObservationConvention convention, @Nullable ToolApprovals approvals,
			@Nullable TranscriptStore transcript, int maxSegmentLength) {
		Assert.isTrue(maxSegmentLength > 0, "'maxSegmentLength' must be positive");
		Assert.notNull(hooks, "'hooks' must not be null");
		Assert.notNull(responses, "'responses' must not be null");
		Assert.notNull(toolCallingManager, "'toolCallingManager' must not be null");
		Assert.isTrue(maxIterations > 0, "'maxIterations' must be positive");
		Assert.notNull(pointsWithHooks, "'pointsWithHooks' must not be null");
		this.pointsWithHooks = pointsWithHooks;
		this.registry = hooks.getRegistry();
		OutgoingTextStage outgoing = new OutgoingTextStage(hooks, responses);
		this.floor = (approvals != null) ? AdvisorPlan.FULL
				: (transcript != null) ? AdvisorPlan.TURN : AdvisorPlan.NONE;
		IncomingMessageStage incoming = new IncomingMessageStage(hooks, responses, outgoing);
		MantleTurnAdvisor turn = new MantleTurnAdvisor(hooks, incoming,
				new TurnObservations(observationRegistry, convention), new ApprovalStage(approvals, incoming),
				new TranscriptRecorder(transcript, Clock.systemUTC()));
		this.turnOnly = List.of(turn);
		this.full = List.of(turn,
				new MantleToolLoopAdvisor(new TurnLoop(hooks, responses, outgoing, new ToolBatch(hooks, approvals),
						maxIterations, maxSegmentLength), new ToolAdvisorTakeOver(toolCallingManager)),
				new MantleModelCallAdvisor(new ModelCallStage(hooks, responses)));
		this.registry.onInstall(this::verify);
		this.registry.onInstall(BufferingReport::log);
	}

	/**
	 * Return the advisors the application's hooks need, outermost first: none without
	 * hooks.
	 * @return the advisors
	 */
	public List<Advisor> getAdvisors() {
		AdvisorPlan needed = AdvisorPlan.of(this.pointsWithHooks.get());
		AdvisorPlan plan = needed.covers(this.floor) ? needed : this.floor;
		if (!this.registry.isInstalled()) {
			// remember the weakest plan a builder got before discovery, to verify
			// it later
			this.earliestPlan.accumulateAndGet(plan,
					(earlier, next) -> (earlier == null || earlier.covers(next)) ? next : earlier);
		}
		return switch (plan) {
			case NONE -> List.of();
			case TURN -> this.turnOnly;
			case FULL -> this.full;
		};
	}

	/**
	 * Return all hook advisors, whatever hooks exist: for tests and applications that
	 * register hooks after startup.
	 * @return the turn, tool-loop and model-call advisors
	 */
	public List<Advisor> getAllAdvisors() {
		return this.full;
	}

	@Override
	public void customize(ChatClient.Builder chatClientBuilder) {
		List<Advisor> advisors = getAdvisors();
		if (!advisors.isEmpty()) {
			chatClientBuilder.defaultAdvisors(advisors);
		}
	}

	/**
	 * Once discovery has run, check that no builder configured before it lacks advisors
	 * for a point that turned out to have hooks.
	 */
	private void verify(HookRegistry installed) {
		AdvisorPlan earliest = this.earliestPlan.get();
		if (earliest == null) {
			return;
		}
		Set<HookPoint> missing = earliest.missing(installed.pointsWithHooks());
		if (missing.isEmpty()) {
			return;
		}
		List<String> hooks = new ArrayList<>();
		for (HookMethod hook : installed.hooks()) {
			if (missing.contains(hook.point())) {
				hooks.add("'" + hook.name() + "' (" + hook.point().configName() + ")");
			}
		}
		throw new HookDefinitionException(List.of(new HookProblem(
				"A ChatClient.Builder was configured while the application started, before hooks were discovered, and "
						+ "its bean definitions showed no hooks at "
						+ missing.stream().map(HookPoint::configName).collect(Collectors.joining(", "))
						+ "; discovery then found " + String.join(", ", hooks)
						+ ". That builder's ChatClients would not run them.",
				"Declare the @Bean method that creates the hook bean with the hook class as its return type (not an "
						+ "interface or Object), so the hooks are visible before beans are created; or build the "
						+ "ChatClient after startup, for example from an ObjectProvider<ChatClient.Builder>.")));
	}

}
