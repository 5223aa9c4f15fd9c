package io.mantlehooks.ai;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.TurnFinishedPayload;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnIncomingMessage;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnTurnFinished;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.test.ScriptedChatModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A hung hook loses only its own invocations: with an observer and a modify hook that
 * never return (and ignore interrupts), every other hook keeps running turn after turn,
 * the hung ones hold no more than their own limit of threads, and the turns keep the fail
 * policy of the hung modify hook's point without waiting for its timeout.
 */
@ExtendWith(OutputCaptureExtension.class)
class HookIsolationTests {

	private static final int TURNS = 200;

	private static final int LIMIT = 8;

	@Test
	void hungHooksLoseOnlyTheirOwnInvocations(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withBean("cannedModel", ScriptedChatModel.class,
					() -> new ScriptedChatModel().otherwise((prompt) -> "canned"))
			.withBean("isolationHooks", IsolationHooks.class)
			.withPropertyValues("mantle.hooks.observers.max-concurrent=" + LIMIT,
					"mantle.hooks.modify.max-concurrent=" + LIMIT,
					// only the hung hooks time out; the healthy ones get far more than a
					// loaded machine needs
					"mantle.hooks.timeouts.observe=120s", "mantle.hooks.timeouts.modify=120s",
					"mantle.hooks.timeouts.hook[isolationHooks.hungObserver]=50ms",
					"mantle.hooks.timeouts.hook[isolationHooks.hungModifier]=50ms",
					// this test is about bulkheads: a breaker would soon stop calling the
					// hung modify hook
					"mantle.hooks.circuit-breaker.enabled=false")
			.run((context) -> {
				IsolationHooks hooks = context.getBean(IsolationHooks.class);
				ChatClient chatClient = ChatTestSupport.chatClient(context);
				int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
				HookRegistry registry = context.getBean(HookRegistry.class);
				HookMethod hungObserver = hook(registry, "isolationHooks.hungObserver");
				HookMethod hungModifier = hook(registry, "isolationHooks.hungModifier");
				try {
					for (int i = 0; i < TURNS; i++) {
						// the hung response hook keeps the model's reply (fail open); the
						// healthy outgoing hook still runs on every turn
						assertThat(chatClient.prompt().user("turn " + i).call().content()).isEqualTo("canned [ok]");
						// only abandoned invocations count against the limit: let this
						// turn's hung observer outlive its timeout before the next turn
						await().atMost(Duration.ofSeconds(60))
							.until(() -> hungObserver.abandonedInFlight() == hungObserver.inFlight());
					}
					// separate observer invocations: wait for both counts
					await().atMost(Duration.ofSeconds(60))
						.until(() -> hooks.finished.get() == TURNS && hooks.incoming.get() == TURNS);
					assertThat(hungObserver.inFlight()).isEqualTo(LIMIT);
					assertThat(hungObserver.rejectedInvocations()).isEqualTo(TURNS - LIMIT);
					assertThat(hungModifier.inFlight()).isEqualTo(LIMIT);
					assertThat(hungModifier.rejectedInvocations()).isEqualTo(TURNS - LIMIT);
					assertThat(hook(registry, "isolationHooks.finished").rejectedInvocations()).isZero();
					assertThat(context.getBean(HookRunner.class).getDroppedObserverInvocations())
						.isEqualTo(TURNS - LIMIT);
					// the hung hooks hold their own threads, no more; everything else
					// comes and goes
					assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore)
						.isLessThanOrEqualTo(2 * LIMIT + 16);
				}
				finally {
					hooks.release.countDown();
				}
			});
		assertThat(output)
			.containsOnlyOnce(
					"Dropping invocations of observe hook 'isolationHooks.hungObserver' at point model-request")
			.containsOnlyOnce("Modify hook 'isolationHooks.hungModifier' at point model-response already has 8 "
					+ "invocations past their timeout and still running");
	}

	/**
	 * A hook that hangs ignoring interrupts holds its thread past its timeout; the pool
	 * replaces that thread, so on a pool of one thread the turn's next hook still runs.
	 */
	@Test
	void aHungHooksThreadIsReplacedSoTheNextHookRunsOnAPoolOfOne() {
		new ApplicationContextRunner().withConfiguration(ChatTestSupport.mantleConfigurations())
			.withBean("cannedModel", ScriptedChatModel.class,
					() -> new ScriptedChatModel().otherwise((prompt) -> "canned"))
			.withBean("isolationHooks", IsolationHooks.class)
			.withPropertyValues("mantle.hooks.executor.pool-size=1", "mantle.hooks.timeouts.modify=120s",
					"mantle.hooks.timeouts.observe=120s",
					"mantle.hooks.timeouts.hook[isolationHooks.hungModifier]=200ms",
					"mantle.hooks.timeouts.hook[isolationHooks.hungObserver]=200ms")
			.run((context) -> {
				IsolationHooks hooks = context.getBean(IsolationHooks.class);
				try {
					ChatClient chatClient = ChatTestSupport.chatClient(context);
					// the hung response hook keeps the model's reply (fail open); the
					// outgoing hook runs on the thread that replaced the hung one
					assertThat(chatClient.prompt().user("hi").call().content()).isEqualTo("canned [ok]");
					HookRegistry registry = context.getBean(HookRegistry.class);
					assertThat(hook(registry, "isolationHooks.hungModifier").abandonedInFlight()).isOne();
				}
				finally {
					hooks.release.countDown();
				}
			});
	}

	private static HookMethod hook(HookRegistry registry, String name) {
		return registry.hooks().stream().filter((hook) -> hook.name().equals(name)).findFirst().orElseThrow();
	}

	static class IsolationHooks {

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger finished = new AtomicInteger();

		final AtomicInteger incoming = new AtomicInteger();

		@OnModelRequest
		void hungObserver(ModelRequestPayload request) {
			hang();
		}

		@ModifyModelResponse
		ModelResponsePayload hungModifier(ModelResponsePayload response) {
			hang();
			return response.withText("never used");
		}

		@ModifyOutgoingText
		OutgoingTextPayload outgoing(OutgoingTextPayload text) {
			return text.withText(text.text() + " [ok]");
		}

		@OnIncomingMessage
		void incoming(IncomingMessagePayload message) {
			this.incoming.incrementAndGet();
		}

		@OnTurnFinished
		void finished(TurnFinishedPayload payload) {
			this.finished.incrementAndGet();
		}

		/**
		 * Never returns until the test is over, whatever interrupts arrive.
		 */
		private void hang() {
			while (this.release.getCount() > 0) {
				try {
					this.release.await();
				}
				catch (InterruptedException ex) {
					// ignored: this hook is hung
				}
			}
		}

	}

}
