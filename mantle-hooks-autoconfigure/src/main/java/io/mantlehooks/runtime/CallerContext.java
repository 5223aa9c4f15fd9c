package io.mantlehooks.runtime;

import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
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
		return new CallerContext(MDC.getCopyOfContextMap(), SNAPSHOTS.captureAll(),
				LocaleContextHolder.getLocaleContext());
	}

	/**
	 * Capture the current thread's context merged with the given context objects (for
	 * example a Reactor {@code ContextView}, whose entries win over the thread's).
	 * @param contexts context objects that Micrometer's context registry can read
	 * @return the captured context
	 */
	public static CallerContext capture(Object... contexts) {
		return new CallerContext(MDC.getCopyOfContextMap(), SNAPSHOTS.captureAll(contexts),
				LocaleContextHolder.getLocaleContext());
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
