package io.mantlehooks.runtime.execution;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.mantlehooks.Channel;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookScope;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Observers join the runner's queue, which hook threads drain, each under its own
 * timeout; one that runs long or hangs does not hold up the others. The queue itself is
 * tested in {@link ObserverQueueTests}.
 */
class ObserveLaneTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class));

	@Test
	void anObserverThatHangsIgnoringInterruptsDoesNotHoldUpTheOthers() {
		// the hung observer runs first and far within its timeout: only the queue's
		// sweep starts another thread for the others
		this.contextRunner.withBean("first", HangingObserver.class)
			.withBean(ThreeObservers.class)
			.withPropertyValues("mantle.hooks.timeouts.observe=60s")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				assertThat(runner.getRegistry().everyAgent().observers(HookPoint.OUTGOING_TEXT).get(0).name())
					.isEqualTo("first.hang");
				HangingObserver hung = context.getBean(HangingObserver.class);
				ThreeObservers observers = context.getBean(ThreeObservers.class);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
				assertThat(hung.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				await().atMost(WAIT).until(() -> observers.seen.size() == 3);
				assertThat(hung.release.getCount()).isOne();
				hung.release.countDown();
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
			});
	}

	@Test
	void observersOfAModifiedPointAreInFlightBeforeTheModifyHookDecidesAndSeeItsPayload() {
		this.contextRunner.withBean(GatedRewrite.class).withBean(ThreeObservers.class).run((context) -> {
			HookRunner runner = context.getBean(HookRunner.class);
			GatedRewrite rewrite = context.getBean(GatedRewrite.class);
			ThreeObservers observers = context.getBean(ThreeObservers.class);
			var result = runner.run(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
			assertThat(rewrite.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			// a test kit's HookActivity waiting now sees them
			assertThat(runner.getObserversInFlight()).isEqualTo(3);
			assertThat(observers.seen).isEmpty();
			rewrite.release.countDown();
			assertThat(result.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOfSatisfying(
					ModifyResult.Proceed.class,
					(proceed) -> assertThat(((OutgoingTextPayload) proceed.payload()).text()).isEqualTo("HI"));
			await().atMost(WAIT).until(() -> observers.seen.size() == 3);
			assertThat(observers.seen).containsExactlyInAnyOrder("a:HI", "b:HI", "c:HI");
			await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
		});
	}

	@Test
	void aBurstOfTurnsRunsEveryObserverOfEveryTurn() throws InterruptedException {
		this.contextRunner.withBean(ThreeObservers.class)
			.withPropertyValues("mantle.hooks.observers.max-concurrent=1")
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				ThreeObservers observers = context.getBean(ThreeObservers.class);
				int turns = 500;
				ExecutorService callers = Executors.newFixedThreadPool(16);
				try {
					for (int i = 0; i < turns; i++) {
						String text = "turn " + i;
						callers
							.execute(() -> runner.observe(HookPoint.OUTGOING_TEXT, outgoing(text), HookScope.none()));
					}
				}
				finally {
					callers.shutdown();
				}
				assertThat(callers.awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				await().atMost(WAIT).until(() -> observers.seen.size() == 3 * turns);
				assertThat(Set.copyOf(observers.seen)).hasSize(3 * turns);
				assertThat(runner.getDroppedObserverInvocations()).isZero();
				await().atMost(WAIT).until(() -> runner.getObserversInFlight() == 0);
			});
	}

	@Test
	void aRefusedHandOffIsEachObserversOutcomeAndReleasesItsAdmission() {
		this.contextRunner.withUserConfiguration(RefusingExecutor.class)
			.withBean(ThreeObservers.class)
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				runner.observe(HookPoint.OUTGOING_TEXT, outgoing("hi"), HookScope.none());
				// the deadline sweep may try a drain too: the last refusal ends them
				await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
					assertThat(runner.getObserversInFlight()).isZero();
					assertThat(runner.getRegistry().everyAgent().observers(HookPoint.OUTGOING_TEXT)).allSatisfy(
							(observer) -> assertThat(observer.outcomeCounts()).containsEntry(HookOutcome.CRASH, 1L));
				});
				assertThat(context.getBean(ThreeObservers.class).seen).isEmpty();
			});
	}

	private static OutgoingTextPayload outgoing(String text) {
		return new OutgoingTextPayload(text, false, "user-42", Map.of(), new Channel("rest", Map.of()));
	}

	@Configuration(proxyBeanMethods = false)
	static class RefusingExecutor {

		@Bean
		AsyncTaskExecutor mantleHookExecutor() {
			return new SimpleAsyncTaskExecutor() {

				@Override
				public void execute(Runnable task) {
					throw new RejectedExecutionException("shut down");
				}

			};
		}

	}

	static class ThreeObservers {

		final List<String> seen = new CopyOnWriteArrayList<>();

		@OnOutgoingText
		void a(OutgoingTextPayload text) {
			record("a", text);
		}

		@OnOutgoingText
		void b(OutgoingTextPayload text) {
			record("b", text);
		}

		@OnOutgoingText
		void c(OutgoingTextPayload text) {
			record("c", text);
		}

		private void record(String name, OutgoingTextPayload text) {
			this.seen.add(name + ":" + text.text());
		}

	}

	static class HangingObserver {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@OnOutgoingText
		void hang(OutgoingTextPayload text) {
			this.started.countDown();
			// ignores interrupts until the test lets it go
			while (this.release.getCount() > 0) {
				try {
					this.release.await();
				}
				catch (InterruptedException ex) {
					// keeps hanging
				}
			}
		}

	}

	static class GatedRewrite {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@ModifyOutgoingText
		OutgoingTextPayload shout(OutgoingTextPayload text) throws InterruptedException {
			this.started.countDown();
			this.release.await();
			return text.withText(text.text().toUpperCase());
		}

	}

}
