/**
 * Internal: not API, may change without notice. The turn as the other {@code ai} packages
 * see it: its immutable identity ({@link io.mantlehooks.ai.turn.Turn}), the turn current
 * on a thread or in a Reactor context, tool arguments as JSON, and the step machine that
 * runs a turn's hook calls once for both {@code .call()} (blocking driver) and
 * {@code .stream()} (non-blocking driver).
 */
@NullMarked
package io.mantlehooks.ai.turn;

import org.jspecify.annotations.NullMarked;
