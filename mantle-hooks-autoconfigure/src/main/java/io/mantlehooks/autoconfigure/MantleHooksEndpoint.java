package io.mantlehooks.autoconfigure;

import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.mantlehooks.HookPoint;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.console.TurnConsole;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.util.Assert;

/**
 * The {@code mantlehooks} actuator endpoint ({@code GET /actuator/mantlehooks}): per
 * point, its modify hook (effective timeout and where it came from, fail policy, circuit
 * state) and its observers; the lanes' limits; and per hook, its invocations since
 * startup by outcome. Like every endpoint but {@code health}, it is not exposed over the
 * web unless {@code management.endpoints.web.exposure.include} names it.
 * <p>
 * Its default access is read-only: Boot does not map the write operation that approves or
 * denies a paused batch until {@code management.endpoint.mantlehooks.access=unrestricted}
 * (anyone who can reach the endpoint could otherwise approve any batch by its id).
 */
@Endpoint(id = MantleHooksEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class MantleHooksEndpoint {

	/** The endpoint's id. */
	public static final String ID = "mantlehooks";

	/**
	 * What {@link TurnConsole.Turns#decisionsOff()} says when the access is read-only.
	 */
	public static final String READ_ONLY = "endpoint_read_only";

	private final HookRegistry registry;

	private final HookRunner runner;

	private final MantleHooksProperties properties;

	private final @Nullable TurnConsole console;

	private final Access access;

	/**
	 * Create the endpoint.
	 * @param registry the hooks
	 * @param runner the runner, for invocations in flight
	 * @param properties the configuration, for the limits
	 */
	public MantleHooksEndpoint(HookRegistry registry, HookRunner runner, MantleHooksProperties properties) {
		this(registry, runner, properties, null);
	}

	/**
	 * Create the endpoint with the turn console's data under {@code /turns}.
	 * @param registry the hooks
	 * @param runner the runner, for invocations in flight
	 * @param properties the configuration, for the limits
	 * @param console recent turns, {@code null} when the console is off
	 */
	public MantleHooksEndpoint(HookRegistry registry, HookRunner runner, MantleHooksProperties properties,
			@Nullable TurnConsole console) {
		this(registry, runner, properties, console, Access.READ_ONLY);
	}

	/**
	 * Create the endpoint with the turn console's data under {@code /turns} and the
	 * access Boot resolved for it.
	 * @param registry the hooks
	 * @param runner the runner, for invocations in flight
	 * @param properties the configuration, for the limits
	 * @param console recent turns, {@code null} when the console is off
	 * @param access the endpoint's access
	 * ({@code management.endpoint.mantlehooks.access}): decisions need
	 * {@link Access#UNRESTRICTED}
	 */
	public MantleHooksEndpoint(HookRegistry registry, HookRunner runner, MantleHooksProperties properties,
			@Nullable TurnConsole console, Access access) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(runner, "'runner' must not be null");
		Assert.notNull(properties, "'properties' must not be null");
		Assert.notNull(access, "'access' must not be null");
		this.registry = registry;
		this.runner = runner;
		this.properties = properties;
		this.console = console;
		this.access = access;
	}

	/**
	 * Return every recent turn, newest first, with their hook invocations, as
	 * {@code GET /actuator/mantlehooks/turns} does.
	 * @param section {@code turns}
	 * @return the turns, {@code null} for another section or when the turn console is off
	 * @see #turns(String, String)
	 */
	public TurnConsole.@Nullable Turns turns(String section) {
		return turns(section, null);
	}

	/**
	 * Return the recent turns ({@code GET /actuator/mantlehooks/turns}), newest first,
	 * with their hook invocations. A client that polls sends the {@code version} of its
	 * last answer ({@code GET /actuator/mantlehooks/turns?changedSince=3f2a9c1b.42}) and
	 * gets only the turns new or changed since, and the ids of those that left the list.
	 * @param section {@code turns}
	 * @param changedSince the {@code version} of an earlier answer, {@code null} for
	 * every turn; a value that is no version of the list is refused with 400
	 * @return the turns, {@code null} (404) for another section or when the turn console
	 * is off; {@code canDecide} is {@code false} while the endpoint is read-only
	 */
	@ReadOperation
	public TurnConsole.@Nullable Turns turns(@Selector String section, @Nullable String changedSince) {
		if (!"turns".equals(section) || this.console == null) {
			return null;
		}
		TurnConsole.Turns turns;
		try {
			turns = this.console.turns(changedSince);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(),
					"'changedSince' must be the 'version' of an earlier answer");
		}
		return (decides()) ? turns : turns.withoutDecisions(READ_ONLY);
	}

	/**
	 * Return one turn with its approval and transcript entries ({@code GET
	 * /actuator/mantlehooks/turns/{id}}).
	 * @param section {@code turns}
	 * @param id the turn id
	 * @return the turn, {@code null} (404) when it is not recorded
	 */
	@ReadOperation
	public TurnConsole.@Nullable TurnDetail turn(@Selector String section, @Selector String id) {
		return ("turns".equals(section) && this.console != null) ? this.console.turn(id).orElse(null) : null;
	}

	/**
	 * Approve or deny a waiting tool-call batch ({@code POST
	 * /actuator/mantlehooks/approvals/{id}} with {@code approve} and an optional
	 * {@code reason}), through the application's {@code ApprovalResumer}. Boot maps it
	 * only when the endpoint's access is unrestricted. The request's principal (Spring
	 * Security's signed-in user), when there is one, is logged and written to the
	 * transcript as the one who decided.
	 * @param section {@code approvals}
	 * @param id the approval id
	 * @param approve whether to run the batch: {@code true} or {@code false} (a JSON
	 * boolean; anything else is refused with 400 and runs nothing)
	 * @param reason why it was declined, at most
	 * {@value io.mantlehooks.MantleHooks#MAX_DENY_REASON_LENGTH} characters (else 400)
	 * @param principal who decides, {@code null} when nobody is signed in
	 * @return what happened, {@code null} (204) when the console is off
	 */
	@WriteOperation
	public TurnConsole.@Nullable Decision decide(@Selector String section, @Selector String id, String approve,
			@Nullable String reason, @Nullable Principal principal) {
		if (!decides()) {
			// Boot does not map this operation then; a caller that reaches it anyway
			// (another adapter) decides nothing either
			throw new InvalidEndpointRequestException(
					"Decisions need management.endpoint." + ID + ".access=unrestricted",
					"decisions are off: the endpoint is read-only");
		}
		// Boot hands web operations the body's values as text: "yes", "on" or "1" would
		// convert to true, so only the two words a JSON boolean becomes are taken (the
		// DecisionRequestFilter has already refused a body whose value is not a JSON
		// boolean, and an approve in the query string)
		if (!"true".equals(approve) && !"false".equals(approve)) {
			throw new InvalidEndpointRequestException("'approve' must be a JSON boolean (true or false)",
					DecisionRequestFilter.NOT_A_BOOLEAN);
		}
		if (reason != null && reason.length() > MantleHooks.MAX_DENY_REASON_LENGTH) {
			throw new InvalidEndpointRequestException(
					"'reason' must be at most " + MantleHooks.MAX_DENY_REASON_LENGTH + " characters",
					"reason too long");
		}
		return ("approvals".equals(section) && this.console != null)
				? this.console.decide(id, Boolean.parseBoolean(approve), reason, operator(principal)) : null;
	}

	/**
	 * Return whether decisions are on: the endpoint's access is unrestricted.
	 * @return whether {@code POST /approvals/{id}} decides
	 */
	boolean decides() {
		return this.access == Access.UNRESTRICTED;
	}

	private static @Nullable String operator(@Nullable Principal principal) {
		String name = (principal != null) ? principal.getName() : null;
		return (name != null && !name.isBlank()) ? name : null;
	}

	/**
	 * Describe the hooks.
	 * @return the description
	 */
	@ReadOperation
	public HooksDescriptor hooks() {
		Map<String, PointDescriptor> points = describe(this.registry.everyAgent());
		Map<String, Map<String, PointDescriptor>> agents = new LinkedHashMap<>();
		for (String agent : this.registry.agents()) {
			agents.put(agent, describe(this.registry.forAgent(agent)));
		}
		MantleHooksProperties.CircuitBreaker breaker = this.properties.getCircuitBreaker();
		Limits limits = new Limits(this.properties.getObservers().getMaxConcurrent(),
				this.properties.getModify().getMaxConcurrent(), this.properties.getMaxIterations(), breaker.isEnabled(),
				new InFlight(this.runner.getObserversInFlight(), this.runner.getModifiersInFlight(),
						this.runner.getAbandoned()));
		return new HooksDescriptor(limits, points, agents);
	}

	private static Map<String, PointDescriptor> describe(HookRegistry.HookSet hooks) {
		Map<String, PointDescriptor> points = new LinkedHashMap<>();
		for (HookPoint point : HookPoint.values()) {
			HookMethod modifier = hooks.modifier(point);
			List<HookDescriptor> observers = new ArrayList<>();
			hooks.observers(point).forEach((observer) -> observers.add(describe(observer)));
			points.put(point.configName(),
					new PointDescriptor((point.modifyAnnotation() != null) ? policy(point) : null,
							(modifier != null) ? describe(modifier) : null, observers));
		}
		return points;
	}

	private static HookDescriptor describe(HookMethod hook) {
		Map<String, Long> outcomes = new LinkedHashMap<>();
		hook.outcomeCounts().forEach((outcome, count) -> outcomes.put(outcome.tagValue(), count));
		CircuitBreaker breaker = hook.circuitBreaker();
		String circuit = (breaker != null) ? breaker.getState().name().toLowerCase(Locale.ROOT) : null;
		return new HookDescriptor(hook.name(),
				hook.method().getDeclaringClass().getName() + "." + hook.method().getName(), hook.timeout().toMillis(),
				hook.timeoutSource().value(), circuit, hook.inFlight(), total(outcomes), outcomes,
				List.copyOf(new TreeSet<>(hook.agents())));
	}

	private static long total(Map<String, Long> outcomes) {
		return outcomes.values().stream().mapToLong(Long::longValue).sum();
	}

	private static String policy(HookPoint point) {
		return point.failPolicy().name().toLowerCase(Locale.ROOT);
	}

	/**
	 * What the endpoint returns.
	 *
	 * @param limits the lanes' limits and invocations in flight
	 * @param points every point, by its configuration name, with the hooks of every
	 * agent: what a {@code ChatClient} that names no agent (or one no hook names) runs
	 * @param agents per agent named by a {@code @ForAgent} hook, every point with the
	 * hooks that agent runs (its own and those of every agent); empty when no hook names
	 * an agent
	 */
	public record HooksDescriptor(Limits limits, Map<String, PointDescriptor> points,
			Map<String, Map<String, PointDescriptor>> agents) implements OperationResponseBody {
	}

	/**
	 * The lanes' limits.
	 *
	 * @param observersMaxConcurrent {@code mantle.hooks.observers.max-concurrent}
	 * @param modifyMaxConcurrent {@code mantle.hooks.modify.max-concurrent}
	 * @param maxIterations {@code mantle.hooks.max-iterations}
	 * @param circuitBreakers whether modify hooks have circuit breakers
	 * @param inFlight invocations in flight now, all hooks together
	 */
	public record Limits(int observersMaxConcurrent, int modifyMaxConcurrent, int maxIterations,
			boolean circuitBreakers, InFlight inFlight) {
	}

	/**
	 * Invocations in flight now (running, or abandoned after a timeout and still
	 * running).
	 *
	 * @param observe observe invocations
	 * @param modify modify invocations
	 * @param pastTimeout invocations abandoned after their timeout whose method still
	 * runs; their threads are replaced in the hook executor until they return
	 */
	public record InFlight(int observe, int modify, int pastTimeout) {
	}

	/**
	 * One point.
	 *
	 * @param failPolicy what a failing modify hook leads to, {@code open} or
	 * {@code closed}; {@code null} for points without a modify lane
	 * @param modify the modify hook, {@code null} when there is none
	 * @param observers the observe hooks
	 */
	public record PointDescriptor(@Nullable String failPolicy, @Nullable HookDescriptor modify,
			List<HookDescriptor> observers) {
	}

	/**
	 * One hook.
	 *
	 * @param name {@code beanName.methodName}
	 * @param method the declaring class and method
	 * @param timeoutMs the effective timeout
	 * @param timeoutSource where it came from: {@code hook}, {@code annotation},
	 * {@code point} or {@code lane}
	 * @param circuit the circuit breaker's state ({@code closed}, {@code open},
	 * {@code half_open}, ...), {@code null} for observers and when breakers are disabled
	 * @param inFlight its invocations in flight now
	 * @param invocations its invocations since startup
	 * @param outcomes its invocations since startup by outcome
	 * @param agents the agents its {@code @ForAgent} names, sorted; empty when it belongs
	 * to every agent
	 */
	public record HookDescriptor(String name, String method, long timeoutMs, String timeoutSource,
			@Nullable String circuit, int inFlight, long invocations, Map<String, Long> outcomes, List<String> agents) {
	}

}
