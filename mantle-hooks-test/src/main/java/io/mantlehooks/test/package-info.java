/**
 * A test kit for hooks: {@link io.mantlehooks.test.TestPayloads} builds payloads with
 * defaults, {@link io.mantlehooks.test.HookTester} runs a hook bean's methods with the
 * real runner semantics and no Spring context,
 * {@link io.mantlehooks.test.ScriptedChatModel} plays a scripted model inside a Spring
 * Boot test and {@link io.mantlehooks.test.LoopbackOpenAiServer} speaks the OpenAI
 * protocol on loopback for tests that use the real OpenAI client over HTTP;
 * {@link io.mantlehooks.test.HookActivity} waits for a turn's observers. It ships as
 * {@code io.mantlehooks:mantle-hooks-test}, for test scope.
 */
@NullMarked
package io.mantlehooks.test;

import org.jspecify.annotations.NullMarked;
