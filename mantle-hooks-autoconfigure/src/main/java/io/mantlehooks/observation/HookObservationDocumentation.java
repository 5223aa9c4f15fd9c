package io.mantlehooks.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The {@code mantle.hook} observation: one per hook invocation, also for invocations that
 * never ran (dropped, bulkhead full, circuit open). With Spring Boot's default handlers
 * it yields a {@code mantle.hook} timer per tag set and, with tracing, a span per
 * invocation under the turn's span.
 */
public enum HookObservationDocumentation implements ObservationDocumentation {

	/** One hook invocation. */
	MANTLE_HOOK {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultHookObservationConvention.class;
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

		/** The hook point, kebab-case ({@code model-request}). */
		POINT {
			@Override
			public String asString() {
				return "mantle.hook.point";
			}
		},

		/** The lane, {@code observe} or {@code modify}. */
		LANE {
			@Override
			public String asString() {
				return "mantle.hook.lane";
			}
		},

		/** The hook, {@code beanName.methodName}. */
		NAME {
			@Override
			public String asString() {
				return "mantle.hook.name";
			}
		},

		/**
		 * What became of the invocation: {@code proceeded}, {@code rejected},
		 * {@code retried}, {@code signal_discarded}, {@code timeout}, {@code crash},
		 * {@code invalid_return}, {@code dropped}, {@code bulkhead_full} or
		 * {@code circuit_open}.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "mantle.hook.outcome";
			}
		},

		/**
		 * Whether the invocation refused a tool call ({@code true}: a tool-call modify
		 * hook proceeded with {@code withRefusal}; its outcome stays {@code proceeded}),
		 * else {@code false}. Always present, so every {@code mantle.hook} meter has the
		 * same tag keys (Prometheus requires it).
		 */
		TOOL_REFUSED {
			@Override
			public String asString() {
				return "mantle.tool.refused";
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

		/** The id of the turn the hook ran for (absent outside a turn). */
		TURN_ID {
			@Override
			public String asString() {
				return "mantle.turn_id";
			}
		}

	}

}
