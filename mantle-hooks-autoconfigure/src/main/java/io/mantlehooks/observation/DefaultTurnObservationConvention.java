package io.mantlehooks.observation;

import io.mantlehooks.observation.TurnObservationDocumentation.HighCardinalityKeyNames;
import io.mantlehooks.observation.TurnObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default {@link TurnObservationConvention}: name {@code mantle.turn}, one method per
 * key so a subclass can change one.
 */
public class DefaultTurnObservationConvention implements TurnObservationConvention {

	/** The observation's default name. */
	public static final String DEFAULT_NAME = "mantle.turn";

	private final String name;

	/**
	 * Create the convention with the default name.
	 */
	public DefaultTurnObservationConvention() {
		this(DEFAULT_NAME);
	}

	/**
	 * Create the convention with another name.
	 * @param name the observation's name
	 */
	public DefaultTurnObservationConvention(String name) {
		this.name = name;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String getContextualName(TurnObservationContext context) {
		return "mantle turn";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(TurnObservationContext context) {
		return KeyValues.of(outcome(context), channel(context), agent(context));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(TurnObservationContext context) {
		return KeyValues.of(turnId(context));
	}

	protected KeyValue outcome(TurnObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.OUTCOME, context.getOutcome());
	}

	protected KeyValue channel(TurnObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.CHANNEL,
				context.getChannel().isEmpty() ? "none" : context.getChannel());
	}

	protected KeyValue agent(TurnObservationContext context) {
		return KeyValue.of(LowCardinalityKeyNames.AGENT, context.getAgent());
	}

	protected KeyValue turnId(TurnObservationContext context) {
		return KeyValue.of(HighCardinalityKeyNames.TURN_ID, context.getTurnId());
	}

}
