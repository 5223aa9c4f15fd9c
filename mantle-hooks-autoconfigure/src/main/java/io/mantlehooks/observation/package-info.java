/**
 * Micrometer observations of hooks ({@code mantle.hook}) and turns ({@code mantle.turn}):
 * their documentation, contexts and replaceable conventions.
 */
@NullMarked
package io.mantlehooks.observation;

import org.jspecify.annotations.NullMarked;
