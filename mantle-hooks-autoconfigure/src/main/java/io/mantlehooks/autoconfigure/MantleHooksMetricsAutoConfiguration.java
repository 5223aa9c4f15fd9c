package io.mantlehooks.autoconfigure;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedTimeLimiterMetrics;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import io.mantlehooks.observation.HookObservationContext;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.transcript.TranscriptStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationHandler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Meters of mantle-hooks beyond its observations, bound to every {@code MeterRegistry}
 * Spring Boot configures: the time each hook invocation waited for a thread
 * ({@code mantle.hook.queued}), the invocations in flight per lane, the transcript's
 * failed and pending database writes and, with {@code resilience4j-micrometer} on the
 * class path, the Resilience4j meters of the hooks' time limiters, bulkheads and circuit
 * breakers (unless Resilience4j's own Spring Boot starter binds its registries already).
 */
@AutoConfiguration(after = { MantleHooksAutoConfiguration.class, MantleHooksStoresAutoConfiguration.class },
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(HookRunner.class)
public final class MantleHooksMetricsAutoConfiguration {

	/** The gauge of invocations in flight, tagged with the lane. */
	public static final String IN_FLIGHT_METER = "mantle.hooks.in.flight";

	/** The count of transcript entries that could not be written to the database. */
	public static final String TRANSCRIPT_WRITES_FAILED_METER = "mantle.transcript.writes.failed";

	/** The gauge of transcript entries waiting to be written to the database. */
	public static final String TRANSCRIPT_WRITES_PENDING_METER = "mantle.transcript.writes.pending";

	@Bean
	MeterBinder mantleHooksInFlightMetrics(HookRunner runner) {
		return (registry) -> {
			Gauge.builder(IN_FLIGHT_METER, runner, HookRunner::getObserversInFlight)
				.tag("mantle.hook.lane", "observe")
				.description("Observe hook invocations in flight (running, or still running after a timeout)")
				.register(registry);
			Gauge.builder(IN_FLIGHT_METER, runner, HookRunner::getModifiersInFlight)
				.tag("mantle.hook.lane", "modify")
				.description("Modify hook invocations in flight (running, or still running after a timeout)")
				.register(registry);
		};
	}

	@Bean
	MeterBinder mantleTranscriptWriteMetrics(ObjectProvider<TranscriptStore> transcript) {
		return (registry) -> {
			if (transcript.getIfUnique() instanceof QueuedTranscriptStore queued) {
				FunctionCounter.builder(TRANSCRIPT_WRITES_FAILED_METER, queued, QueuedTranscriptStore::getFailedWrites)
					.description("Transcript entries that could not be written to the database (queue full, "
							+ "database failed or did not answer, circuit breaker open)")
					.register(registry);
				Gauge.builder(TRANSCRIPT_WRITES_PENDING_METER, queued, QueuedTranscriptStore::getPendingWrites)
					.description("Transcript entries waiting to be written to the database")
					.register(registry);
			}
		};
	}

	/**
	 * The {@code mantle.hook.queued} timer, when the application has a meter registry: an
	 * observation handler only where something is measured, since any handler makes the
	 * registry create every observation.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(MeterRegistry.class)
	static class QueuedTimeConfiguration {

		@Bean
		ObservationHandler<HookObservationContext> mantleHookQueuedTimeHandler(
				ObjectProvider<MeterRegistry> meterRegistry) {
			return new HookQueuedTimeHandler(meterRegistry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(TaggedCircuitBreakerMetrics.class)
	@ConditionalOnMissingClass("io.github.resilience4j.springboot3.circuitbreaker.autoconfigure.CircuitBreakerMetricsAutoConfiguration")
	static class Resilience4jMetricsConfiguration {

		@Bean
		MeterBinder mantleHooksCircuitBreakerMetrics(CircuitBreakerRegistry registry) {
			return TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry);
		}

		@Bean
		MeterBinder mantleHooksBulkheadMetrics(BulkheadRegistry registry) {
			return TaggedBulkheadMetrics.ofBulkheadRegistry(registry);
		}

		@Bean
		MeterBinder mantleHooksTimeLimiterMetrics(TimeLimiterRegistry registry) {
			return TaggedTimeLimiterMetrics.ofTimeLimiterRegistry(registry);
		}

	}

}
