/**
 * Internal: not API, may change without notice. Finding hook methods on the application's
 * beans and validating them at startup (signatures, one modify hook per point and agent,
 * control signals read from the bytecode or from the compile-time index, timeouts), into
 * the {@link io.mantlehooks.runtime.HookRegistry}.
 */
@NullMarked
package io.mantlehooks.runtime.discovery;

import org.jspecify.annotations.NullMarked;
