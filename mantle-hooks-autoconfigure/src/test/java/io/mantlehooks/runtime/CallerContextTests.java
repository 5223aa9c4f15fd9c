package io.mantlehooks.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.context.i18n.LocaleContextHolder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a hook thread sees of its caller, and what it keeps afterwards: the caller's MDC,
 * locale and current observation exactly, and then its own again, whatever the work did.
 */
class CallerContextTests {

	private final ExecutorService hookThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void tearDown() {
		MDC.clear();
		LocaleContextHolder.resetLocaleContext();
		this.hookThread.shutdownNow();
	}

	@Test
	void aHookThreadSeesTheCallersMdcLocaleAndObservationThenNothing() throws Exception {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		Observation turn = Observation.start("turn", registry);
		CallerContext caller;
		try (Observation.Scope scope = turn.openScope()) {
			MDC.put("requestId", "req-7");
			LocaleContextHolder.setLocale(Locale.GERMAN);
			caller = CallerContext.capture().withMdc("mantle.turn_id", "turn-7");
		}
		Seen during = onHookThread(() -> caller.call(Seen::now));
		assertThat(during.mdc)
			.containsExactlyInAnyOrderEntriesOf(Map.of("requestId", "req-7", "mantle.turn_id", "turn-7"));
		assertThat(during.locale).isEqualTo(Locale.GERMAN);
		assertThat(during.observation).isSameAs(turn);
		Seen after = onHookThread(Seen::now);
		assertThat(after.mdc).isEmpty();
		assertThat(after.locale).isNull();
		assertThat(after.observation).isNull();
		turn.stop();
	}

	@Test
	void aThreadWithContextOfItsOwnSeesOnlyTheCallersAndGetsItsOwnBack() throws Exception {
		MDC.put("requestId", "req-8");
		CallerContext caller = CallerContext.capture().withMdc("mantle.turn_id", "turn-8");
		MDC.clear();
		onHookThread(() -> {
			MDC.put("worker", "w-1");
			LocaleContextHolder.setLocale(Locale.FRENCH);
			return null;
		});
		Seen during = onHookThread(() -> caller.call(Seen::now));
		assertThat(during.mdc)
			.containsExactlyInAnyOrderEntriesOf(Map.of("requestId", "req-8", "mantle.turn_id", "turn-8"));
		assertThat(during.locale).as("the caller had no locale").isNull();
		Seen after = onHookThread(Seen::now);
		assertThat(after.mdc).containsExactlyInAnyOrderEntriesOf(Map.of("worker", "w-1"));
		assertThat(after.locale).isEqualTo(Locale.FRENCH);
	}

	@Test
	void whatAHookPutsInTheMdcOrItsThrowableLeavesNothingBehind() throws Exception {
		CallerContext caller = CallerContext.empty().withMdc("mantle.turn_id", "turn-9");
		List<Supplier<Object>> faults = List.of(() -> {
			MDC.put("leaked", "yes");
			throw new IllegalStateException("crash");
		}, () -> {
			MDC.put("leaked", "yes");
			throw new StackOverflowError();
		}, () -> {
			MDC.put("leaked", "yes");
			LocaleContextHolder.setLocale(Locale.ITALIAN);
			return null;
		});
		for (Supplier<Object> fault : faults) {
			onHookThread(() -> {
				try {
					return caller.call(fault);
				}
				catch (RuntimeException | Error ex) {
					return ex;
				}
			});
			Seen after = onHookThread(Seen::now);
			assertThat(after.mdc).isEmpty();
			assertThat(after.locale).isNull();
		}
		onHookThread(() -> {
			MDC.put("worker", "w-2");
			return null;
		});
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> onHookThread(() -> caller.call(() -> {
			MDC.put("leaked", "yes");
			throw new IllegalStateException("crash");
		})));
		assertThat(onHookThread(Seen::now).mdc).containsExactlyInAnyOrderEntriesOf(Map.of("worker", "w-2"));
	}

	@Test
	void anExtraMdcEntryReplacesTheCallersEntryOfTheSameKey() throws Exception {
		MDC.put("mantle.turn_id", "outer");
		MDC.put("requestId", "req-10");
		CallerContext caller = CallerContext.capture().withMdc("mantle.turn_id", "inner");
		MDC.clear();
		Seen during = onHookThread(() -> caller.call(Seen::now));
		assertThat(during.mdc)
			.containsExactlyInAnyOrderEntriesOf(Map.of("requestId", "req-10", "mantle.turn_id", "inner"));
	}

	@Test
	void aCallerWithNothingToCarryRestoresNothing() {
		assertThat(CallerContext.capture()).isSameAs(CallerContext.empty());
		// Spring AI puts a no-op observation in scope when no registry is configured
		Observation noop = Observation.start("noop", ObservationRegistry.NOOP);
		try (Observation.Scope scope = noop.openScope()) {
			assertThat(CallerContext.capture()).isSameAs(CallerContext.empty());
		}
	}

	@Test
	void manyTurnsAtOnceEachSeeTheirOwnContext() throws Exception {
		ExecutorService callers = Executors.newFixedThreadPool(8);
		ExecutorService hooks = Executors.newFixedThreadPool(4);
		try {
			List<Future<String>> seen = new ArrayList<>();
			for (int i = 0; i < 2_000; i++) {
				String id = "turn-" + i;
				seen.add(callers.submit(() -> {
					MDC.put("requestId", id);
					try {
						CallerContext caller = CallerContext.capture().withMdc("mantle.turn_id", id);
						return hooks
							.submit(() -> caller.call(() -> MDC.get("requestId") + "/" + MDC.get("mantle.turn_id")))
							.get(30, TimeUnit.SECONDS);
					}
					finally {
						MDC.clear();
					}
				}));
			}
			for (int i = 0; i < seen.size(); i++) {
				assertThat(seen.get(i).get(60, TimeUnit.SECONDS)).isEqualTo("turn-" + i + "/turn-" + i);
			}
			for (int i = 0; i < 8; i++) {
				assertThat(hooks.submit(MDC::getCopyOfContextMap).get(30, TimeUnit.SECONDS)).isNullOrEmpty();
			}
		}
		finally {
			callers.shutdownNow();
			hooks.shutdownNow();
		}
	}

	private <T> T onHookThread(Supplier<T> work) throws Exception {
		return this.hookThread.submit(work::get).get(30, TimeUnit.SECONDS);
	}

	private record Seen(Map<String, String> mdc, @Nullable Locale locale, @Nullable Observation observation) {

		static Seen now() {
			Map<String, String> mdc = MDC.getCopyOfContextMap();
			return new Seen((mdc != null) ? mdc : Map.of(),
					(LocaleContextHolder.getLocaleContext() != null) ? LocaleContextHolder.getLocale() : null,
					new ObservationThreadLocalAccessor().getValue());
		}

	}

}
