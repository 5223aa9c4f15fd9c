/**
 * Internal: not API, may change without notice. Spring AI messages made immutable once
 * per turn ("frozen"), so every hook and observer of a model request can share them
 * instead of copying the whole conversation per invocation; the provider still receives
 * the messages the turn had. It sits beside the payloads (the api layer) because
 * {@link io.mantlehooks.ModelRequestPayload} freezes its messages itself.
 */
@NullMarked
package io.mantlehooks.message;

import org.jspecify.annotations.NullMarked;
