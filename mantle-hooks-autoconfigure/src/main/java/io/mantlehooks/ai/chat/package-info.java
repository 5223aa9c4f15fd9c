/**
 * Internal: not API, may change without notice. The chat turn: the three advisors that
 * run the hook points of a {@code ChatClient} turn (turn, tool loop, model call), the
 * rounds of the loop, and the conversions between Spring AI responses and hook payloads.
 * The advisors are public so an application can order its own advisors against their
 * {@code ORDER}; the customizer is the bean the auto-configuration registers.
 */
@NullMarked
package io.mantlehooks.ai.chat;

import org.jspecify.annotations.NullMarked;
