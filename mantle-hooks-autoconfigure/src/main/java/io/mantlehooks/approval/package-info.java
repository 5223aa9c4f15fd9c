/**
 * Human approval of tool calls: which calls wait for a person, and where a paused batch
 * is kept until it is approved, denied or expires.
 */
@NullMarked
package io.mantlehooks.approval;

import org.jspecify.annotations.NullMarked;
