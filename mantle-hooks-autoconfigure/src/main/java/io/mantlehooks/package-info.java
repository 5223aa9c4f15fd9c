/**
 * The public hook model: payload records, control signals, the
 * {@link io.mantlehooks.HookPoint} catalogue and {@link io.mantlehooks.MantleHooks}
 * (context keys and helpers).
 */
@NullMarked
package io.mantlehooks;

import org.jspecify.annotations.NullMarked;
