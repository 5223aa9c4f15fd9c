package io.mantlehooks.runtime;

import org.springframework.core.task.TaskDecorator;

/**
 * Carries the caller's context to hook threads: the SLF4J MDC, every registered
 * Micrometer {@code ThreadLocalAccessor} (the current observation, and with it the
 * tracing span) and the locale, so a hook's logs and spans belong to the turn that ran
 * it.
 */
public final class HookContextTaskDecorator implements TaskDecorator {

	@Override
	public Runnable decorate(Runnable runnable) {
		CallerContext caller = CallerContext.capture();
		return () -> caller.run(runnable);
	}

}
