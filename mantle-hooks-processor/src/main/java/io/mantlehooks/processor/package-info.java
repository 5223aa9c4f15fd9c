/**
 * The optional compile-time index of mantle-hooks: an annotation processor that records,
 * for every class with hook methods, which control signals each method constructs, so the
 * runtime need not read those class files at startup.
 */
package io.mantlehooks.processor;
