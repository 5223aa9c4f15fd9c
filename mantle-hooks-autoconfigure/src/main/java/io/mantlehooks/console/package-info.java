/**
 * Internal: not API, may change without notice. The turn console: a bounded recorder of
 * recent turns and their hook invocations, built on the {@code mantle.turn} and
 * {@code mantle.hook} observations, and what the console page and the {@code mantlehooks}
 * Actuator endpoint show of it. Applications configure it
 * ({@code mantle.hooks.console.*}) and reach it over HTTP; its public types serve the
 * auto-configuration.
 */
@NullMarked
package io.mantlehooks.console;

import org.jspecify.annotations.NullMarked;
