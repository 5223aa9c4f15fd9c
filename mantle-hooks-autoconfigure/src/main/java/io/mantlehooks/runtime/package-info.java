/**
 * Hook discovery, startup validation, the registry and the runner (observe and modify
 * lanes, timeouts, fail policies, the payload wall).
 */
@NullMarked
package io.mantlehooks.runtime;

import org.jspecify.annotations.NullMarked;
