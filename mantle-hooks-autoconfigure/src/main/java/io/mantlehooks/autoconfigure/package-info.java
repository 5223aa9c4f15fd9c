/**
 * Spring Boot auto-configuration for mantle-hooks: properties, beans and failure
 * analysis.
 */
@NullMarked
package io.mantlehooks.autoconfigure;

import org.jspecify.annotations.NullMarked;
