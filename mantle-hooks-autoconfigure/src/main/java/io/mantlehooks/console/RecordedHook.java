package io.mantlehooks.console;

import org.jspecify.annotations.Nullable;

/**
 * One recorded hook invocation.
 *
 * @param point the point's configuration name, e.g. {@code model-request}
 * @param lane {@code modify} (awaited, on the turn's critical path) or {@code observe}
 * (never awaited)
 * @param hook {@code beanName.methodName}
 * @param startMs when it was handed to the executor, from the turn's start
 * @param durationMs how long until its outcome was known
 * @param outcome {@code proceeded}, {@code rejected}, {@code retried}, {@code timeout},
 * {@code crash}, ...
 * @param before the payload's text before a modify hook, only with
 * {@code mantle.hooks.console.include-text=true}
 * @param after the payload's text the modify hook proceeded with, likewise
 */
public record RecordedHook(String point, String lane, String hook, double startMs, double durationMs, String outcome,
		@Nullable String before, @Nullable String after) {

}
