/**
 * The conversation transcript: every utterance a user sent and every reply a user
 * received, rejected ones kept and marked {@code discarded}, in memory or in a database.
 */
@NullMarked
package io.mantlehooks.transcript;

import org.jspecify.annotations.NullMarked;
