package io.mantlehooks.test;

import java.time.Duration;

import io.mantlehooks.runtime.execution.HookRunner;

import org.springframework.context.ApplicationContext;
import org.springframework.util.Assert;

/**
 * Waits for the observe hooks of an application in whole-turn tests. Observers run
 * asynchronously: a turn answers without waiting for them, so right after {@code .call()}
 * returns, an {@code @OnTurnFinished} or {@code @OnOutgoingText} observer may not have
 * run yet. Wait for them instead of sleeping:
 *
 * <pre class="code">
 * String reply = chatClient.prompt().user("hi").call().content();
 * HookActivity.awaitObservers(context, Duration.ofSeconds(10));
 * assertThat(audit.finishedTurns()).hasSize(1);
 * </pre>
 *
 * It waits until no observer invocation of the application is in flight, so it covers the
 * observers started by then: all the observers of every turn that has returned, since a
 * {@code .call()} turn and a {@code .stream()} turn both start them before the caller
 * sees their end. An observer past its timeout whose method still runs counts as in
 * flight until it returns.
 */
public final class HookActivity {

	private static final long POLL_MILLIS = 5;

	private HookActivity() {
	}

	/**
	 * Wait until no observer invocation of this application is in flight.
	 * @param context the application context of a Spring Boot test, with the hooks
	 * auto-configured
	 * @param atMost how long to wait at most; be generous, tests run on busy machines
	 * @throws IllegalStateException when the context has no mantle-hooks runner
	 * @throws AssertionError when observers still run after {@code atMost}
	 */
	public static void awaitObservers(ApplicationContext context, Duration atMost) {
		Assert.notNull(context, "'context' must not be null");
		HookRunner runner = context.getBeanProvider(HookRunner.class).getIfUnique();
		if (runner == null) {
			throw new IllegalStateException(
					"No single HookRunner in the application context: are mantle-hooks auto-configured?");
		}
		awaitObservers(runner, atMost);
	}

	private static void awaitObservers(HookRunner runner, Duration atMost) {
		Assert.notNull(runner, "'runner' must not be null");
		Assert.isTrue(atMost != null && !atMost.isNegative(), "'atMost' must not be null or negative");
		long deadline = System.nanoTime() + atMost.toNanos();
		int inFlight = runner.getObserversInFlight();
		while (inFlight > 0) {
			if (System.nanoTime() - deadline >= 0) {
				throw new AssertionError(
						"Observers still running after " + atMost + ": " + inFlight + " invocation(s) in flight");
			}
			pause();
			inFlight = runner.getObserversInFlight();
		}
	}

	private static void pause() {
		try {
			Thread.sleep(POLL_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for observers", ex);
		}
	}

}
