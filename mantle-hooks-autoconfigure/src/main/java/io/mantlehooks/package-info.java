/**
 * The public hook model: payload records, control signals, the
 * {@link io.mantlehooks.HookPoint} catalogue, {@link io.mantlehooks.MantleHooks} (context
 * keys, helpers and the advisors' orders), what a hook invocation comes to
 * ({@link io.mantlehooks.ModifyResult}, {@link io.mantlehooks.HookOutcome},
 * {@link io.mantlehooks.HookFailure}) and the exceptions an application meets
 * ({@link io.mantlehooks.HookDefinitionException},
 * {@link io.mantlehooks.UnhookedModelCallException}).
 */
@NullMarked
package io.mantlehooks;

import org.jspecify.annotations.NullMarked;
