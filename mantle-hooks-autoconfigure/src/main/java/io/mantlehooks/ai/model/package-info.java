/**
 * {@code ChatModel} beans wrapped so that a model call made outside a hooked turn (a
 * {@code ChatClient} built without the hooks) is reported or refused.
 */
@NullMarked
package io.mantlehooks.ai.model;

import org.jspecify.annotations.NullMarked;
