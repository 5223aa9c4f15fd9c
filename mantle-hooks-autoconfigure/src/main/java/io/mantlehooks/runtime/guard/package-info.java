/**
 * Internal: not API, may change without notice. The Resilience4j guards of each hook,
 * made in the application's registries: its time limiter, its bulkhead of abandoned
 * invocations and a modify hook's circuit breaker.
 */
@NullMarked
package io.mantlehooks.runtime.guard;

import org.jspecify.annotations.NullMarked;
