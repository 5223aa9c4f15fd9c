package io.mantlehooks.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The {@code mantle.turn} observation: one per chat turn, from the moment the turn
 * advisor takes the request to the reply (the last chunk of a stream). Turns rejected at
 * the incoming message count too, so a dashboard shows the rejection rate per channel.
 */
public enum TurnObservationDocumentation implements ObservationDocumentation {

	/** One chat turn. */
	MANTLE_TURN {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultTurnObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/**
	 * Low-cardinality keys: metric tags.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * How the turn ended: {@code completed}, {@code rejected}, {@code hook_error},
		 * {@code max_iterations}, {@code awaiting_approval}, {@code cancelled} or
		 * {@code error}.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "mantle.turn.outcome";
			}
		},

		/** The channel's name ({@code none} when the application set none). */
		CHANNEL {
			@Override
			public String asString() {
				return "mantle.channel";
			}
		},

		/**
		 * The agent whose hooks ran: the name the {@code ChatClient} gave to
		 * {@code MantleHooks.agent(...)}, {@code default} when it named none.
		 */
		AGENT {
			@Override
			public String asString() {
				return "mantle.agent";
			}
		}

	}

	/**
	 * High-cardinality keys: span attributes only.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/** The turn's id. */
		TURN_ID {
			@Override
			public String asString() {
				return "mantle.turn_id";
			}
		}

	}

}
