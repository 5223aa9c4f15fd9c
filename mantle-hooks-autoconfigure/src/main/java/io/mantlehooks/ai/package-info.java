/**
 * Spring AI glue: the advisors that run the hook points around every {@code ChatClient}
 * turn, and the conversions between Spring AI types and hook payloads.
 */
@NullMarked
package io.mantlehooks.ai;

import org.jspecify.annotations.NullMarked;
