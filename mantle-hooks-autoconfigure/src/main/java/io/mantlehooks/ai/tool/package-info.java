/**
 * Internal: not API, may change without notice. Tool-call batches: preflight (tool-call
 * hooks once per call, before any tool runs), dispatch through Spring AI's
 * {@code ToolCallingManager} with MCP {@code _meta} per call, and the tool-result hooks.
 */
@NullMarked
package io.mantlehooks.ai.tool;

import org.jspecify.annotations.NullMarked;
