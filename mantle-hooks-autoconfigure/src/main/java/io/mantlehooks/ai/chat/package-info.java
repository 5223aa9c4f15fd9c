/**
 * The chat turn: the three advisors that run the hook points of a {@code ChatClient} turn
 * (turn, tool loop, model call), the rounds of the loop, and the conversions between
 * Spring AI responses and hook payloads.
 */
@NullMarked
package io.mantlehooks.ai.chat;

import org.jspecify.annotations.NullMarked;
