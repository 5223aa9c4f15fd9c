/**
 * Internal: not API, may change without notice. {@code ChatModel} beans wrapped so that a
 * model call made outside a hooked turn (a {@code ChatClient} built without the hooks) is
 * reported or refused. Applications meet
 * {@link io.mantlehooks.ai.model.UnhookedModelCallException} (thrown with
 * {@code mantle.hooks.unhooked-calls=fail}) and
 * {@link io.mantlehooks.ai.model.UnhookedCallPolicy} (that property's type).
 */
@NullMarked
package io.mantlehooks.ai.model;

import org.jspecify.annotations.NullMarked;
