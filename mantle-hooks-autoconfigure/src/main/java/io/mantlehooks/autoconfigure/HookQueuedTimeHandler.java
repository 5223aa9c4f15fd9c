package io.mantlehooks.autoconfigure;

import io.mantlehooks.observation.HookObservationContext;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Records how long each hook invocation waited for a thread before its method started, as
 * the timer {@value #METER}: one sample per {@code mantle.hook} observation, with that
 * observation's low-cardinality tags. The wait is the machine's: it never counts against
 * the hook's timeout, and a rising wait says the executor is the bottleneck.
 */
final class HookQueuedTimeHandler implements ObservationHandler<HookObservationContext> {

	/** The timer of the time hook invocations waited for a thread. */
	static final String METER = "mantle.hook.queued";

	private final ObjectProvider<MeterRegistry> meterRegistry;

	HookQueuedTimeHandler(ObjectProvider<MeterRegistry> meterRegistry) {
		this.meterRegistry = meterRegistry;
	}

	@Override
	public void onStop(HookObservationContext context) {
		MeterRegistry registry = this.meterRegistry.getIfUnique();
		if (registry == null) {
			return;
		}
		Tags tags = Tags.empty();
		for (KeyValue keyValue : context.getLowCardinalityKeyValues()) {
			tags = tags.and(Tag.of(keyValue.getKey(), keyValue.getValue()));
		}
		Timer.builder(METER)
			.description("Time a hook invocation waited for a thread before its method started")
			.tags(tags)
			.register(registry)
			.record(context.getQueued());
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof HookObservationContext;
	}

}
