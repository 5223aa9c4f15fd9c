/**
 * The shop assistant: a chat page and REST API over a {@code ChatClient} with tools,
 * approvals, knowledge and memory, and hooks at every point.
 */
package io.mantlehooks.sample;
