package io.mantlehooks.runtime;

import java.util.Map;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

import org.springframework.core.task.TaskDecorator;

/**
 * Carries the caller's context to hook threads: the SLF4J MDC and every registered
 * Micrometer {@code ThreadLocalAccessor} (the current observation, and with it the
 * tracing span), so a hook's logs and spans belong to the turn that ran it.
 */
public final class HookContextTaskDecorator implements TaskDecorator {

	private final ContextSnapshotFactory snapshotFactory = ContextSnapshotFactory.builder().build();

	@Override
	public Runnable decorate(Runnable runnable) {
		Map<String, String> mdc = MDC.getCopyOfContextMap();
		ContextSnapshot snapshot = this.snapshotFactory.captureAll();
		return () -> {
			Map<String, String> previous = MDC.getCopyOfContextMap();
			setMdc(mdc);
			try (ContextSnapshot.Scope scope = snapshot.setThreadLocals()) {
				runnable.run();
			}
			finally {
				setMdc(previous);
			}
		};
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
