/**
 * The turn console: a bounded recorder of recent turns and their hook invocations, built
 * on the {@code mantle.turn} and {@code mantle.hook} observations, and what the console
 * page and the {@code mantlehooks} Actuator endpoint show of it.
 */
@NullMarked
package io.mantlehooks.console;

import org.jspecify.annotations.NullMarked;
