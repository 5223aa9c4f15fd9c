/**
 * Internal: not API, may change without notice. Knowledge searches: {@code VectorStore}
 * and {@code DocumentRetriever} beans wrapped so every search passes the knowledge-query
 * and knowledge-results hooks.
 */
@NullMarked
package io.mantlehooks.ai.knowledge;

import org.jspecify.annotations.NullMarked;
