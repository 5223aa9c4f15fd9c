/**
 * Internal: not API, may change without notice. The chat turn: the three advisors that
 * run the hook points of a {@code ChatClient} turn (turn, tool loop, model call), the
 * rounds of the loop, and the conversions between Spring AI responses and hook payloads.
 * The advisors are package-private: an application orders its own advisors against their
 * orders in {@code MantleHooks} ({@code TURN_ADVISOR_ORDER} and the others); the
 * customizer is public as the bean the auto-configuration registers, which an application
 * that builds a {@code ChatClient} by hand applies.
 */
@NullMarked
package io.mantlehooks.ai.chat;

import org.jspecify.annotations.NullMarked;
