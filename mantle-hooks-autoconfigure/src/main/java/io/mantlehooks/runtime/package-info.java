/**
 * Internal: not API, may change without notice. The hooks as the runtime knows them: the
 * registry of validated {@link io.mantlehooks.runtime.HookMethod}s, the scope of a turn
 * they run for, and what an invocation comes to (outcomes, results, failures). Finding
 * and validating hooks is {@code runtime.discovery}, running them
 * {@code runtime.execution}, their Resilience4j guards {@code runtime.guard}. Its public
 * types serve the {@code ai} packages, the auto-configuration and the test kit. What
 * applications meet of it is API: {@link io.mantlehooks.HookDefinitionException} (a
 * startup failure) and, through the test kit's {@code HookResult},
 * {@link io.mantlehooks.ModifyResult}, {@link io.mantlehooks.HookOutcome} and
 * {@link io.mantlehooks.HookFailure}.
 */
@NullMarked
package io.mantlehooks.runtime;

import org.jspecify.annotations.NullMarked;
