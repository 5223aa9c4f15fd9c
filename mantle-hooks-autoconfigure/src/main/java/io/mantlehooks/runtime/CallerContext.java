package io.mantlehooks.runtime;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
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
 * <p>
 * Every hook invocation restores one, so it is made to cost little: a thread-local value
 * is captured only when one is set, the locale holder is touched only when the locale
 * differs, and a thread whose MDC was empty gets the entries put and then cleared rather
 * than a copy of a map set and a copy of the old one set back.
 */
public final class CallerContext {

	private static final ContextSnapshotFactory SNAPSHOTS = ContextSnapshotFactory.builder().build();

	private static final String[] NONE = {};

	private static final CallerContext EMPTY = new CallerContext(NONE, NONE, null, null);

	/** The MDC's keys, and at the same positions its values: empty for none. */
	private final String[] mdcKeys;

	private final String[] mdcValues;

	private final @Nullable ContextSnapshot snapshot;

	private final @Nullable LocaleContext locale;

	private CallerContext(String[] mdcKeys, String[] mdcValues, @Nullable ContextSnapshot snapshot,
			@Nullable LocaleContext locale) {
		this.mdcKeys = mdcKeys;
		this.mdcValues = mdcValues;
		this.snapshot = snapshot;
		this.locale = locale;
	}

	/**
	 * Capture the current thread's context.
	 * @return the captured context
	 */
	public static CallerContext capture() {
		return of(MDC.getCopyOfContextMap(), anyThreadLocalValue() ? SNAPSHOTS.captureAll() : null,
				LocaleContextHolder.getLocaleContext());
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
	private static CallerContext of(@Nullable Map<String, String> mdc, @Nullable ContextSnapshot snapshot,
			@Nullable LocaleContext locale) {
		boolean noMdc = mdc == null || mdc.isEmpty();
		boolean noValues = snapshot == null || (snapshot instanceof Map<?, ?> values && onlyNoopObservations(values));
		if (noMdc && noValues && locale == null) {
			return EMPTY;
		}
		String[] keys = NONE;
		String[] values = NONE;
		if (!noMdc) {
			keys = new String[mdc.size()];
			values = new String[keys.length];
			int i = 0;
			for (Map.Entry<String, String> entry : mdc.entrySet()) {
				keys[i] = entry.getKey();
				values[i++] = entry.getValue();
			}
		}
		return new CallerContext(keys, values, noValues ? null : snapshot, locale);
	}

	/**
	 * Whether a registered thread-local accessor has a value worth capturing on this
	 * thread: asked of the accessors by index, so a turn whose caller has none (or only
	 * Spring AI's no-op observation) builds no snapshot at all.
	 */
	private static boolean anyThreadLocalValue() {
		List<ThreadLocalAccessor<?>> accessors = ContextRegistry.getInstance().getThreadLocalAccessors();
		for (int i = 0; i < accessors.size(); i++) {
			if (worthRestoring(accessors.get(i).getValue())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the captured thread-local values are nothing worth restoring: none, or only
	 * no-op observations.
	 */
	private static boolean onlyNoopObservations(Map<?, ?> values) {
		for (Object value : values.values()) {
			if (worthRestoring(value)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether a thread-local value is worth restoring on another thread: any value but
	 * the no-op observation that Spring AI puts in every Reactor context when no
	 * observation registry is configured.
	 */
	private static boolean worthRestoring(@Nullable Object value) {
		return value != null && !(value instanceof Observation observation && observation.isNoop());
	}

	/**
	 * Return this context with one more MDC entry.
	 * @param key the MDC key
	 * @param value the value
	 * @return the extended context
	 */
	public CallerContext withMdc(String key, String value) {
		int at = Arrays.asList(this.mdcKeys).indexOf(key);
		int size = (at >= 0) ? this.mdcKeys.length : this.mdcKeys.length + 1;
		String[] keys = Arrays.copyOf(this.mdcKeys, size);
		String[] values = Arrays.copyOf(this.mdcValues, size);
		keys[(at >= 0) ? at : size - 1] = key;
		values[(at >= 0) ? at : size - 1] = value;
		return new CallerContext(keys, values, this.snapshot, this.locale);
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
		boolean hadMdc = previousMdc != null && !previousMdc.isEmpty();
		LocaleContext previousLocale = LocaleContextHolder.getLocaleContext();
		// setting the holder to null removes its thread-local entries, which the next
		// read makes again: leave it alone when it holds what the caller had
		boolean otherLocale = previousLocale != this.locale;
		enterMdc(hadMdc);
		if (otherLocale) {
			LocaleContextHolder.setLocaleContext(this.locale);
		}
		try (ContextSnapshot.Scope scope = (this.snapshot != null) ? this.snapshot.setThreadLocals() : () -> {
		}) {
			return supplier.get();
		}
		finally {
			// a thread that had no MDC gets none back, whatever the work put there
			if (hadMdc) {
				MDC.setContextMap(previousMdc);
			}
			else {
				MDC.clear();
			}
			// and the work's own locale, if it set one, does not outlive it
			if (otherLocale || LocaleContextHolder.getLocaleContext() != previousLocale) {
				LocaleContextHolder.setLocaleContext(previousLocale);
			}
		}
	}

	/**
	 * Give this thread the caller's MDC. A thread that had none (as the hook executor's
	 * threads have between hooks) gets the caller's entries put one by one, which copies
	 * nothing; a thread with entries of its own has them replaced by the caller's map.
	 */
	private void enterMdc(boolean hadMdc) {
		if (!hadMdc) {
			for (int i = 0; i < this.mdcKeys.length; i++) {
				MDC.put(this.mdcKeys[i], this.mdcValues[i]);
			}
			return;
		}
		if (this.mdcKeys.length == 0) {
			MDC.clear();
			return;
		}
		Map<String, String> mdc = new HashMap<>(this.mdcKeys.length * 2);
		for (int i = 0; i < this.mdcKeys.length; i++) {
			mdc.put(this.mdcKeys[i], this.mdcValues[i]);
		}
		MDC.setContextMap(mdc);
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

}
