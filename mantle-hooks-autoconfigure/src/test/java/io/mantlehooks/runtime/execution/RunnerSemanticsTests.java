package io.mantlehooks.runtime.execution;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.Channel;
import io.mantlehooks.HookFailure;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookScope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The runner's refined semantics: what observers see, that none can change what another
 * sees, and that an asynchronous hook stays under its timeout even when it blocks before
 * it returns its stage.
 */
@ExtendWith(OutputCaptureExtension.class)
class RunnerSemanticsTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
		// hooks meant to succeed get far more time than a loaded machine needs
		.withPropertyValues("mantle.hooks.timeouts.observe=60s", "mantle.hooks.timeouts.modify=60s");

	@Test
	void anObserverChangingAMessageInPlaceFailsAloneAndTheOthersSeeNoChange(CapturedOutput output) {
		this.contextRunner.withBean("copyObservers", CopyObservers.class).run((context) -> {
			UserMessage message = UserMessage.builder().text("hi").metadata(new HashMap<>(Map.of("k", "v"))).build();
			context.getBean(HookRunner.class)
				.observe(HookPoint.MODEL_REQUEST, request(List.of(message)), HookScope.none());
			CopyObservers observers = context.getBean(CopyObservers.class);
			assertThat(observers.read.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(observers.refused.get()).isInstanceOf(UnsupportedOperationException.class);
			assertThat(observers.secondSaw.get()).containsEntry("k", "v").doesNotContainKey("mutated");
			assertThat(message.getMetadata()).doesNotContainKey("mutated");
			await().atMost(WAIT)
				.until(() -> output.toString()
					.contains("Observe hook 'copyObservers.mutate' at point model-request failed"));
			assertThat(output).contains("return payload.withMessages(...)");
		});
	}

	@Test
	void successiveHooksShareTheMessagesOfALongHistoryWithoutCopies() {
		this.contextRunner.withBean("sharingHooks", SharingHooks.class).run((context) -> {
			List<Message> history = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				history.add(UserMessage.builder().text("message " + i).metadata(Map.of("turn", i)).build());
			}
			ModelRequestPayload input = request(history);
			HookRunner runner = context.getBean(HookRunner.class);
			ModifyResult<ModelRequestPayload> first = runner.runAndWait(HookPoint.MODEL_REQUEST, input,
					HookScope.none());
			runner.runAndWait(HookPoint.MODEL_REQUEST, ((ModifyResult.Proceed<ModelRequestPayload>) first).payload(),
					HookScope.none());
			SharingHooks hooks = context.getBean(SharingHooks.class);
			await().atMost(WAIT).until(() -> hooks.observed.size() == 2);
			// the modify hook, then the observer, twice: the very same message instances
			// every time, no copy per invocation
			assertThat(hooks.modified).hasSize(2);
			for (List<Message> seen : List.of(hooks.modified.get(0), hooks.modified.get(1), hooks.observed.get(0),
					hooks.observed.get(1))) {
				assertThat(seen).hasSize(100);
				for (int i = 0; i < 100; i++) {
					assertThat(seen.get(i)).isSameAs(input.messages().get(i));
				}
			}
		});
	}

	@Test
	void observersSeeTheTextThatProceedsAfterTheModifyHook() {
		this.contextRunner.withBean("upperCaseHooks", UpperCaseHooks.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			UpperCaseHooks hooks = context.getBean(UpperCaseHooks.class);
			runner.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("card 4111"), HookScope.none());
			runner.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("reject me"), HookScope.none());
			runner.runAndWait(HookPoint.OUTGOING_TEXT, outgoing("crash me"), HookScope.none());
			await().atMost(WAIT).until(() -> hooks.observed.size() == 3);
			// a rewrite is seen as rewritten; a rejection and a crash as received
			assertThat(hooks.observed).containsExactlyInAnyOrder("CARD [REDACTED]", "reject me", "crash me");
		});
	}

	@Test
	void asyncHookWhoseSynchronousPartOverrunsItsTimeoutTimesOutAndItsLateResultIsNeverUsed(CapturedOutput output) {
		this.contextRunner.withBean("slowStartHook", SlowStartHook.class)
			.withPropertyValues("mantle.hooks.timeouts.modify=100ms")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				SlowStartHook hook = context.getBean(SlowStartHook.class);
				for (int i = 0; i < 2; i++) {
					ModifyResult<OutgoingTextPayload> result = runner.runAndWait(HookPoint.OUTGOING_TEXT,
							outgoing("hello"), HookScope.none());
					// the caller has its answer while the hook is still busy before its
					// stage: it spins until released
					assertThat(hook.returned.get()).isFalse();
					assertThat(result).isInstanceOfSatisfying(ModifyResult.Failed.class,
							(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT));
					CountDownLatch release = hook.release;
					hook.release = new CountDownLatch(1);
					release.countDown();
					await().atMost(WAIT).untilTrue(hook.returned);
					hook.returned.set(false);
				}
			});
		assertThat(output).containsOnlyOnce("Hook 'slowStartHook.late' at point outgoing-text took")
			.contains("Blocking work belongs in a plain method")
			.doesNotContain("LATE SECRET");
	}

	static ModelRequestPayload request(List<Message> messages) {
		return new ModelRequestPayload(messages, ModelSettings.empty(), List.of(), 1, "user-42", Map.of(),
				Channel.of("rest"));
	}

	static OutgoingTextPayload outgoing(String text) {
		return new OutgoingTextPayload(text, false, "user-42", Map.of(), Channel.of("rest"));
	}

	static class CopyObservers {

		final CountDownLatch mutated = new CountDownLatch(1);

		final CountDownLatch read = new CountDownLatch(1);

		final AtomicReference<Map<String, Object>> secondSaw = new AtomicReference<>();

		final AtomicReference<RuntimeException> refused = new AtomicReference<>();

		@OnModelRequest
		void mutate(ModelRequestPayload request) {
			try {
				request.messages().get(0).getMetadata().put("mutated", true);
			}
			catch (RuntimeException ex) {
				this.refused.set(ex);
				throw ex;
			}
			finally {
				this.mutated.countDown();
			}
		}

		@OnModelRequest
		void read(ModelRequestPayload request) throws InterruptedException {
			this.mutated.await(60, TimeUnit.SECONDS);
			this.secondSaw.set(new HashMap<>(request.messages().get(0).getMetadata()));
			this.read.countDown();
		}

	}

	static class SharingHooks {

		final List<List<Message>> modified = new CopyOnWriteArrayList<>();

		final List<List<Message>> observed = new CopyOnWriteArrayList<>();

		@ModifyModelRequest
		ModelRequestPayload keep(ModelRequestPayload request) {
			this.modified.add(request.messages());
			return request.withModelSettings(request.modelSettings().withTemperature(0.2));
		}

		@OnModelRequest
		void watch(ModelRequestPayload request) {
			this.observed.add(request.messages());
		}

	}

	static class UpperCaseHooks {

		final List<String> observed = new CopyOnWriteArrayList<>();

		@ModifyOutgoingText
		OutgoingTextPayload redact(OutgoingTextPayload text) {
			if (text.text().startsWith("reject")) {
				throw new HookRejection("no");
			}
			if (text.text().startsWith("crash")) {
				throw new IllegalStateException("boom");
			}
			return text.withText(text.text().replace("4111", "[redacted]").toUpperCase());
		}

		@OnOutgoingText
		void audit(OutgoingTextPayload text) {
			this.observed.add(text.text());
		}

	}

	static class SlowStartHook {

		final AtomicBoolean returned = new AtomicBoolean();

		volatile CountDownLatch release = new CountDownLatch(1);

		@ModifyOutgoingText
		CompletionStage<OutgoingTextPayload> late(OutgoingTextPayload text) {
			// blocking work before the stage: ignores interrupts, until the test
			// releases it
			Stalls.spinUntil(this.release, 60_000);
			this.returned.set(true);
			return CompletableFuture.completedFuture(text.withText("LATE SECRET"));
		}

	}

}
