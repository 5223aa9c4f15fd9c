/**
 * Internal: not API, may change without notice. {@code ChatModel} beans wrapped so that a
 * model call made outside a hooked turn (a {@code ChatClient} built without the hooks) is
 * reported or refused. What applications meet of it is API:
 * {@link io.mantlehooks.UnhookedModelCallException} (thrown with
 * {@code mantle.hooks.unhooked-calls=fail}) and {@link io.mantlehooks.UnhookedCallPolicy}
 * (that property's type).
 */
@NullMarked
package io.mantlehooks.ai.model;

import org.jspecify.annotations.NullMarked;
