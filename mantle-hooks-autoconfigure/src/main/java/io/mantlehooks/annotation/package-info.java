/**
 * The hook annotations: one per lane (observe {@code @On...}, modify {@code @Modify...})
 * and insertion point. Put them on methods of Spring beans; they also work as
 * meta-annotations.
 */
@NullMarked
package io.mantlehooks.annotation;

import org.jspecify.annotations.NullMarked;
