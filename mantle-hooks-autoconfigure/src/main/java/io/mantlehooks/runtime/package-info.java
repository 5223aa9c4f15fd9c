/**
 * Internal: not API, may change without notice. Hook discovery, startup validation, the
 * registry and the runner (observe and modify lanes, timeouts, fail policies, the payload
 * wall). Its public types serve the {@code ai} packages, the auto-configuration and the
 * test kit; applications meet only {@link io.mantlehooks.runtime.HookDefinitionException}
 * (a startup failure) and, through the test kit's {@code HookResult},
 * {@link io.mantlehooks.runtime.ModifyResult}, {@link io.mantlehooks.runtime.HookOutcome}
 * and {@link io.mantlehooks.runtime.HookFailure}.
 */
@NullMarked
package io.mantlehooks.runtime;

import org.jspecify.annotations.NullMarked;
