package io.mantlehooks.runtime;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

import org.springframework.context.i18n.LocaleContext;
import org.springframework.context.i18n.LocaleContextHolder;

/**
 * The thread-bound context of a caller, captured once and restored on other threads: the
 * SLF4J MDC, every registered Micrometer {@code ThreadLocalAccessor} (the current
 * observation, and with it the tracing span) and Spring's locale. Hooks and the engine's
 * replies then see the turn's context, however many threads the turn crosses.
 */
public final class CallerContext {

	private static final ContextSnapshotFactory SNAPSHOTS = ContextSnapshotFactory.builder().build();

	private static final CallerContext EMPTY = new CallerContext(null, null, null);

	private final @Nullable Map<String, String> mdc;

	private final @Nullable ContextSnapshot snapshot;

	private final @Nullable LocaleContext locale;

	private CallerContext(@Nullable Map<String, String> mdc, @Nullable ContextSnapshot snapshot,
			@Nullable LocaleContext locale) {
		this.mdc = mdc;
		this.snapshot = snapshot;
		this.locale = locale;
	}

	/**
	 * Capture the current thread's context.
	 * @return the captured context
	 */
	public static CallerContext capture() {
		return of(MDC.getCopyOfContextMap(), SNAPSHOTS.captureAll(), LocaleContextHolder.getLocaleContext());
	}

	/**
	 * Capture the current thread's context merged with the given context objects (for
	 * example a Reactor {@code ContextView}, whose entries win over the thread's).
	 * @param contexts context objects that Micrometer's context registry can read
	 * @return the captured context
	 */
	public static CallerContext capture(Object... contexts) {
		return of(MDC.getCopyOfContextMap(), SNAPSHOTS.captureAll(contexts), LocaleContextHolder.getLocaleContext());
	}

	/**
	 * A caller with nothing to carry (no MDC, no thread-local value, no locale) costs
	 * nothing to restore.
	 */
	private static CallerContext of(@Nullable Map<String, String> mdc, ContextSnapshot snapshot,
			@Nullable LocaleContext locale) {
		boolean noMdc = mdc == null || mdc.isEmpty();
		boolean noValues = snapshot instanceof Map<?, ?> values && onlyNoopObservations(values);
		if (noMdc && noValues && locale == null) {
			return EMPTY;
		}
		return new CallerContext(noMdc ? null : mdc, noValues ? null : snapshot, locale);
	}

	/**
	 * Whether the captured thread-local values are nothing worth restoring: none, or only
	 * the no-op observation that Spring AI puts in every Reactor context when no
	 * observation registry is configured.
	 */
	private static boolean onlyNoopObservations(Map<?, ?> values) {
		for (Object value : values.values()) {
			if (!(value instanceof Observation observation) || !observation.isNoop()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return this context with one more MDC entry.
	 * @param key the MDC key
	 * @param value the value
	 * @return the extended context
	 */
	public CallerContext withMdc(String key, String value) {
		Map<String, String> mdc = (this.mdc != null) ? new HashMap<>(this.mdc) : new HashMap<>(2);
		mdc.put(key, value);
		return new CallerContext(Collections.unmodifiableMap(mdc), this.snapshot, this.locale);
	}

	/**
	 * Return a context that restores nothing.
	 * @return the empty context
	 */
	public static CallerContext empty() {
		return EMPTY;
	}

	/**
	 * Run the supplier with this context on the current thread, then restore what was
	 * there before.
	 * @param <T> the result type
	 * @param supplier the work
	 * @return what the supplier returned
	 */
	public <T> T call(Supplier<T> supplier) {
		if (this == EMPTY) {
			return supplier.get();
		}
		Map<String, String> previousMdc = MDC.getCopyOfContextMap();
		LocaleContext previousLocale = LocaleContextHolder.getLocaleContext();
		setMdc(this.mdc);
		LocaleContextHolder.setLocaleContext(this.locale);
		try (ContextSnapshot.Scope scope = (this.snapshot != null) ? this.snapshot.setThreadLocals() : () -> {
		}) {
			return supplier.get();
		}
		finally {
			setMdc(previousMdc);
			LocaleContextHolder.setLocaleContext(previousLocale);
		}
	}

	/**
	 * Run the task with this context on the current thread.
	 * @param task the work
	 */
	public void run(Runnable task) {
		call(() -> {
			task.run();
			return null;
		});
	}

	private static void setMdc(@Nullable Map<String, String> context) {
		if (context != null) {
			MDC.setContextMap(context);
		}
		else {
			MDC.clear();
		}
	}

}
