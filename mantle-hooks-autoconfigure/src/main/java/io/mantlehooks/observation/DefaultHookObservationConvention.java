package io.mantlehooks.observation;

import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.observation.HookObservationDocumentation.HighCardinalityKeyNames;
import io.mantlehooks.observation.HookObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default {@link HookObservationConvention}: name {@code mantle.hook}, one method per
 * key so a subclass can change one.
 */
public class DefaultHookObservationConvention implements HookObservationConvention {

	/** The observation's default name. */
	public static final String DEFAULT_NAME = "mantle.hook";

	private final String name;

	/**
	 * Create the convention with the default name.
	 */
	public DefaultHookObservationConvention() {
		this(DEFAULT_NAME);
	}

	/**
	 * Create the convention with another name.
	 * @param name the observation's name
	 */
	public DefaultHookObservationConvention(String name) {
		this.name = name;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String getContextualName(HookObservationContext context) {
		return "mantle hook " + context.getHookName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(HookObservationContext context) {
		return KeyValues.of(point(context), lane(context), hookName(context), outcome(context), toolRefused(context),
				agent(context));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(HookObservationContext context) {
		return context.getTurnId().isEmpty() ? KeyValues.empty() : KeyValues.of(turnId(context));
	}

	protected KeyValue point(HookObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.POINT, context.getPoint().configName());
	}

	protected KeyValue lane(HookObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.LANE, context.getLane());
	}

	protected KeyValue hookName(HookObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.NAME, context.getHookName());
	}

	protected KeyValue outcome(HookObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.OUTCOME, context.getOutcome());
	}

	protected KeyValue toolRefused(HookObservationContext context) {
		boolean refused = context.getOutput() instanceof ToolCallPayload call && call.refusal() != null;
		return KeyValue.of(LowCardinalityKeyNames.TOOL_REFUSED, Boolean.toString(refused));
	}

	protected KeyValue agent(HookObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.AGENT, context.getAgent());
	}

	protected KeyValue turnId(HookObservationContext context) {
		return KeyValue.of(HighCardinalityKeyNames.TURN_ID, context.getTurnId());
	}

}
