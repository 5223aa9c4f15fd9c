/**
 * Internal: not API, may change without notice. Running hooks: the runner and its observe
 * and modify lanes, one invocation under its timeout (counted from the moment its method
 * starts), the hook executors, the payload wall and the observations of each invocation.
 */
@NullMarked
package io.mantlehooks.runtime.execution;

import org.jspecify.annotations.NullMarked;
