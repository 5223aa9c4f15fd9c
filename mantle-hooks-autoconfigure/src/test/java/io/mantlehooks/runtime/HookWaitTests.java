package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.Stalls;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * How a turn's thread waits for a hook it awaits: it spins within its limits, then parks;
 * the result is the same either way. The futures here count how often the wait looks at
 * them (a spin looks more than once) and complete themselves on a given look or when the
 * wait parks, so nothing depends on how fast the machine is.
 */
@Timeout(60)
class HookWaitTests {

	/** Long enough that a spin never runs out in these tests, however loaded. */
	private static final long NEVER_RUNS_OUT = Duration.ofSeconds(30).toNanos();

	/** Runs out at its first check: every spin is outlasted. */
	private static final long RUNS_OUT_AT_ONCE = 1;

	@Test
	void aHookThatAnswersWhileTheWaitSpinsIsTakenWithoutParking() throws Exception {
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger());
		// nobody completes this future if the wait parks: the test would hang
		Looked<String> answer = Looked.completingOnLook(5, "redacted");
		assertThat(wait.get(answer)).isEqualTo("redacted");
		assertThat(answer.looks()).isEqualTo(5);
		assertThat(answer.parked()).isFalse();
		assertThat(wait.spinningNow()).isZero();
	}

	@Test
	void aHookThatOutlastsTheSpinIsWaitedForParked() throws Exception {
		HookWait wait = new HookWait(RUNS_OUT_AT_ONCE, 1, new AtomicInteger());
		Looked<String> answer = Looked.completingWhenParked("late");
		assertThat(wait.get(answer)).isEqualTo("late");
		assertThat(answer.looks()).isEqualTo(2);
		assertThat(answer.parked()).isTrue();
		assertThat(wait.spinningNow()).isZero();
	}

	@Test
	void aResultThatIsThereParksNorSpins() throws Exception {
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger());
		Looked<String> answer = Looked.completingOnLook(1, "ready");
		assertThat(wait.get(answer)).isEqualTo("ready");
		assertThat(answer.looks()).isEqualTo(1);
	}

	@Test
	void noSpinAndNoProcessorToSpareParkAtOnce() throws Exception {
		for (HookWait wait : List.of(HookWait.PARK, new HookWait(NEVER_RUNS_OUT, 0, new AtomicInteger()))) {
			Looked<String> answer = Looked.completingWhenParked("parked");
			assertThat(wait.get(answer)).isEqualTo("parked");
			assertThat(answer.looks()).isEqualTo(1);
		}
	}

	@Test
	void aFailedHookFutureFailsTheWaitAsBefore() {
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger());
		CompletableFuture<String> failed = CompletableFuture.failedFuture(new IllegalStateException("boom"));
		assertThatThrownBy(() -> wait.get(failed)).isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
	}

	@Test
	void anInterruptedWaitStillEndsInInterruptedExceptionAfterItsSpin() {
		HookWait wait = new HookWait(RUNS_OUT_AT_ONCE, 1, new AtomicInteger());
		Thread.currentThread().interrupt();
		try {
			assertThatThrownBy(() -> wait.get(new CompletableFuture<>())).isInstanceOf(InterruptedException.class);
		}
		finally {
			Thread.interrupted();
		}
		assertThat(wait.spinningNow()).isZero();
	}

	@Test
	void atMostTheAllowedNumberOfThreadsSpinAtOnce() throws Exception {
		AtomicInteger spinning = new AtomicInteger();
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, spinning);
		CompletableFuture<String> held = new CompletableFuture<>();
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			Future<String> spinner = other.submit(() -> wait.get(held));
			await().atMost(Duration.ofSeconds(30)).until(() -> wait.spinningNow() == 1);
			// the one slot is taken: this wait parks at once instead of spinning
			Looked<String> answer = Looked.completingWhenParked("parked");
			assertThat(wait.get(answer)).isEqualTo("parked");
			assertThat(answer.looks()).isEqualTo(1);
			held.complete("spun");
			assertThat(spinner.get()).isEqualTo("spun");
			assertThat(spinning).hasValue(0);
		}
		finally {
			other.shutdownNow();
		}
	}

	@Test
	void spinsTheHooksKeepOutlastingBackOffToAProbeNowAndThenUntilOneIsAnswered() throws Exception {
		HookWait wait = new HookWait(RUNS_OUT_AT_ONCE, 1, new AtomicInteger());
		for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF; i++) {
			assertThat(wait.backingOff()).isFalse();
			Looked<String> slow = Looked.completingWhenParked("slow");
			assertThat(wait.get(slow)).isEqualTo("slow");
			assertThat(slow.looks()).as("wait %d spun", i).isEqualTo(2);
		}
		assertThat(wait.backingOff()).isTrue();
		int spun = 0;
		for (int i = 0; i < 2 * HookWait.PROBE_EVERY; i++) {
			Looked<String> slow = Looked.completingWhenParked("slow");
			assertThat(wait.get(slow)).isEqualTo("slow");
			spun += (slow.looks() > 1) ? 1 : 0;
		}
		assertThat(spun).isEqualTo(2);
		assertThat(wait.backingOff()).isTrue();
		// a probe that the hook answers while it spins ends the backing off
		for (int i = 0; i < HookWait.PROBE_EVERY && wait.backingOff(); i++) {
			assertThat(wait.get(Looked.completingOnLook(2, "quick"))).isEqualTo("quick");
		}
		assertThat(wait.backingOff()).isFalse();
		// the next wait spins again: it gets the result on its spin's first look
		Looked<String> next = Looked.completingOnLook(2, "quick");
		assertThat(wait.get(next)).isEqualTo("quick");
		assertThat(next.parked()).isFalse();
	}

	@Test
	void theSpinIsLimitedToAMillisecond() {
		assertThatIllegalArgumentException().isThrownBy(() -> new HookWait(Duration.ofMillis(2)))
			.withMessage("The spin before a wait parks must be between 0 and 1000us, but was 2000us");
		assertThatIllegalArgumentException().isThrownBy(() -> new HookWait(Duration.ofNanos(-1000)))
			.withMessage("The spin before a wait parks must be between 0 and 1000us, but was -1us");
		assertThat(new HookWait(HookWait.MAX_SPIN).getSpin()).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void aKeptThreadWaitsForASpinnersSlotWithinItsSpinAndThenHoldsIt() throws Exception {
		AtomicInteger spinning = new AtomicInteger(1);
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, spinning);
		AtomicInteger looks = new AtomicInteger();
		AtomicInteger handOverAtLook = new AtomicInteger(Integer.MAX_VALUE);
		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> handed = thread.submit(() -> wait
				.spinUntil(() -> looks.incrementAndGet() >= handOverAtLook.get(), () -> false, () -> false));
			// it looks while it waits for the slot another spinner holds
			await().atMost(Duration.ofSeconds(30)).until(() -> looks.get() > 2);
			spinning.decrementAndGet();
			// now it holds the slot and spins
			await().atMost(Duration.ofSeconds(30)).until(() -> spinning.get() == 1);
			handOverAtLook.set(0);
			assertThat(handed.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(spinning).hasValue(0);
		}
		finally {
			thread.shutdownNow();
		}
	}

	@Test
	void aWaitForAnInvocationHandedToASpinningKeptThreadWaitsForTheSlotThatThreadLetsGoOf() throws Exception {
		// the kept thread still holds the one slot as it takes the invocation
		AtomicInteger spinning = new AtomicInteger(1);
		AtomicInteger waitingForSlot = new AtomicInteger();
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, spinning, waitingForSlot);
		Looked<String> answer = Looked.completingOnLook(5, "redacted");
		assertThat(wait.getFromKeptThread(answer)).isEqualTo("redacted");
		assertThat(answer.looks()).isEqualTo(5);
		assertThat(answer.parked()).isFalse();
		assertThat(spinning).hasValue(1);
		assertThat(waitingForSlot).hasValue(0);
		// any other wait parks at once while the slot is taken
		Looked<String> other = Looked.completingWhenParked("parked");
		assertThat(wait.get(other)).isEqualTo("parked");
		assertThat(other.looks()).isEqualTo(1);
		assertThat(other.parked()).isTrue();
	}

	@Test
	void aWaitForAKeptThreadTakesTheSlotWhenItFreesAndLetsGoOfItWhenAnswered() throws Exception {
		AtomicInteger spinning = new AtomicInteger(1);
		AtomicInteger waitingForSlot = new AtomicInteger();
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, spinning, waitingForSlot);
		CompletableFuture<String> answer = new CompletableFuture<>();
		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			Future<String> waited = thread.submit(() -> wait.getFromKeptThread(answer));
			await().atMost(Duration.ofSeconds(30)).until(() -> waitingForSlot.get() == 1);
			// the kept thread lets go of the slot: the waiting thread takes it
			spinning.decrementAndGet();
			await().atMost(Duration.ofSeconds(30)).until(() -> waitingForSlot.get() == 0 && spinning.get() == 1);
			answer.complete("redacted");
			assertThat(waited.get(30, TimeUnit.SECONDS)).isEqualTo("redacted");
			assertThat(spinning).hasValue(0);
			assertThat(wait.backingOff()).isFalse();
		}
		finally {
			thread.shutdownNow();
		}
	}

	@Test
	void onlyAsManyWaitsForKeptThreadsWaitForASlotAsMaySpinTheOthersParkAndCountAMiss() throws Exception {
		// the one slot is taken, and so is the one place to wait for it
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger(1), new AtomicInteger(1));
		for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF; i++) {
			Looked<String> answer = Looked.completingWhenParked("parked");
			// would spin for the whole NEVER_RUNS_OUT if it waited
			assertThat(wait.getFromKeptThread(answer)).isEqualTo("parked");
			assertThat(answer.parked()).isTrue();
		}
		assertThat(wait.backingOff()).isTrue();
	}

	@Test
	void aKeptThreadsSpinCountsItsTimeOnlyOnceTheThreadItSpinsForNoLongerWaits() {
		// a clock of the test's own: every look at the condition is 10 ns later
		AtomicLong now = new AtomicLong();
		HookWait wait = new HookWait(100, 1, new AtomicInteger(), new AtomicInteger(), now::get);
		AtomicInteger looks = new AtomicInteger();
		// the other thread is woken after 30 looks (three spins' time) and hands over 5
		// looks later
		boolean answered = wait.spinUntil(() -> {
			now.addAndGet(10);
			return looks.incrementAndGet() >= 35;
		}, () -> false, () -> looks.get() < 30);
		assertThat(answered).isTrue();
		assertThat(looks).hasValue(35);
		// counted from the start, the same spin runs out after ten looks
		looks.set(0);
		boolean counted = wait.spinUntil(() -> {
			now.addAndGet(10);
			return looks.incrementAndGet() >= 35;
		}, () -> false, () -> false);
		assertThat(counted).isFalse();
		assertThat(looks).hasValue(11);
	}

	@Test
	void aKeptThreadWaitsForTheThreadItSpinsForAtMostAFewSpinsTimeAndThatCountsAsOutlasted() {
		assertEveryOutlastedSpinEndsAtTheOuterBound((looks) -> () -> true);
	}

	@Test
	void aSpinWhoseThreadStopsWaitingLateStillEndsAtTheOuterBound() {
		// the other thread stops waiting a tenth of a spin before the outer bound
		assertEveryOutlastedSpinEndsAtTheOuterBound((looks) -> () -> looks.get() < 50);
	}

	/**
	 * Spin eight times, a look every 10 ns of a clock of the test's own and nothing
	 * handed over, while the thread spun for waits as {@code notYet} says: each spin ends
	 * five spins' time after its first look, counted as outlasted.
	 */
	private static void assertEveryOutlastedSpinEndsAtTheOuterBound(Function<AtomicInteger, BooleanSupplier> notYet) {
		AtomicLong now = new AtomicLong();
		HookWait wait = new HookWait(100, 1, new AtomicInteger(), new AtomicInteger(), now::get);
		for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF; i++) {
			AtomicInteger looks = new AtomicInteger();
			boolean answered = wait.spinUntil(() -> {
				now.addAndGet(10);
				looks.incrementAndGet();
				return false;
			}, () -> false, notYet.apply(looks));
			assertThat(answered).isFalse();
			// five spins' time: fifty looks after the first, not a whole spin more
			assertThat(looks).hasValue(51);
		}
		assertThat(wait.backingOff()).isTrue();
		assertThat(wait.spinningNow()).isZero();
	}

	@Test
	void aKeptThreadWhoseSlotStaysTakenGivesUpAtTheEndOfItsSpinAndBacksOff() {
		AtomicInteger spinning = new AtomicInteger(1);
		HookWait wait = new HookWait(RUNS_OUT_AT_ONCE, 1, spinning);
		for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF; i++) {
			assertThat(wait.spinUntil(() -> false, () -> false, () -> false)).isFalse();
		}
		assertThat(wait.backingOff()).isTrue();
		assertThat(spinning).hasValue(1);
		// a wait whose condition already holds takes no slot and is answered
		assertThat(wait.spinUntil(() -> true, () -> false, () -> false)).isTrue();
		// a sibling shares the slots, not the backing off
		HookWait sibling = wait.sibling();
		assertThat(sibling.backingOff()).isFalse();
		assertThat(sibling.spinningNow()).isOne();
		assertThat(sibling.getSpin()).isEqualTo(wait.getSpin());
	}

	@Test
	void onlyAsManyKeptThreadsWaitForASlotAsMaySpinTheOthersGiveUpAtOnce() {
		// the one slot is taken, and so is the one place to wait for it
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger(1), new AtomicInteger(1));
		for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF; i++) {
			// would spin for the whole NEVER_RUNS_OUT if it waited
			assertThat(wait.spinUntil(() -> false, () -> false, () -> false)).isFalse();
		}
		assertThat(wait.backingOff()).isTrue();
	}

	@Test
	void aStoppedSpinEndsAtOnceAndCountsNeitherWay() throws Exception {
		HookWait wait = new HookWait(NEVER_RUNS_OUT, 1, new AtomicInteger());
		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			for (int i = 0; i < HookWait.MISSES_BEFORE_BACKING_OFF + 1; i++) {
				AtomicInteger looks = new AtomicInteger();
				CountDownLatch stop = new CountDownLatch(1);
				Future<Boolean> spun = thread.submit(() -> wait.spinUntil(() -> {
					looks.incrementAndGet();
					return false;
				}, () -> stop.getCount() == 0, () -> false));
				await().atMost(Duration.ofSeconds(30)).until(() -> looks.get() > 2);
				stop.countDown();
				assertThat(spun.get(30, TimeUnit.SECONDS)).isFalse();
				assertThat(wait.spinningNow()).isZero();
			}
			assertThat(wait.backingOff()).isFalse();
		}
		finally {
			thread.shutdownNow();
		}
	}

	@Test
	void aBurstOfAwaitedQuickHooksSkipsNoneAndLeavesNoSpinner() throws Exception {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
			.withPropertyValues("mantle.hooks.timeouts.modify=60s")
			.withBean("quickHook", QuickHook.class)
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				int callers = 64;
				int turnsEach = 50;
				ExecutorService pool = Executors.newFixedThreadPool(callers);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<List<String>>> results = new ArrayList<>();
				try {
					for (int c = 0; c < callers; c++) {
						int caller = c;
						results.add(pool.submit(() -> {
							start.await();
							List<String> seen = new ArrayList<>();
							for (int t = 0; t < turnsEach; t++) {
								ModifyResult<ModelRequestPayload> result = runner.runAndWait(HookPoint.MODEL_REQUEST,
										request("card 4111 of " + caller + "/" + t), HookScope.none());
								seen.add((result instanceof ModifyResult.Proceed<ModelRequestPayload> proceed)
										? proceed.payload().messages().get(0).getText() : result.toString());
							}
							return seen;
						}));
					}
					start.countDown();
					for (int c = 0; c < callers; c++) {
						List<String> seen = results.get(c).get();
						for (int t = 0; t < turnsEach; t++) {
							assertThat(seen.get(t)).isEqualTo("card [card] of " + c + "/" + t);
						}
					}
				}
				finally {
					pool.shutdownNow();
				}
				HookMethod hook = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.MODEL_REQUEST);
				assertThat(hook).isNotNull();
				assertThat(hook.outcomeCounts()).containsEntry(HookOutcome.PROCEEDED, (long) callers * turnsEach);
				assertThat(hook.rejectedInvocations()).isZero();
				assertThat(runner.getWait().spinningNow()).isZero();
			});
	}

	@Test
	void faultyAwaitedHooksEndAsTheirFailPolicySaysAndLeaveNoSpinner() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
			.withPropertyValues("mantle.hooks.timeouts.modify=60s")
			.withBean("faultyHooks", FaultyHooks.class)
			.run((context) -> {
				HookRunner runner = context.getBean(HookRunner.class);
				// each wait spins first, then parks until the hook's fault settles it
				assertThat(runner.runAndWait(HookPoint.MODEL_REQUEST, HookRunnerTests.request(), HookScope.none()))
					.isInstanceOfSatisfying(ModifyResult.Failed.class, (failed) -> {
						assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.CRASH);
						assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.CLOSED);
					});
				assertThat(runner.runAndWait(HookPoint.TOOL_RESULT, HookRunnerTests.toolResult("42"), HookScope.none()))
					.isInstanceOfSatisfying(ModifyResult.Failed.class, (failed) -> {
						assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.CRASH);
						assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.OPEN);
					});
				assertThat(runner.runAndWait(HookPoint.OUTGOING_TEXT, HookRunnerTests.outgoing("hi"), HookScope.none()))
					.isInstanceOfSatisfying(ModifyResult.Failed.class,
							(failed) -> assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.INVALID_RETURN));
				assertThat(
						runner.runAndWait(HookPoint.MODEL_RESPONSE, HookRunnerTests.response("hi"), HookScope.none()))
					.isInstanceOfSatisfying(ModifyResult.Failed.class, (failed) -> {
						assertThat(failed.failure().kind()).isEqualTo(HookFailure.Kind.TIMEOUT);
						assertThat(failed.policy()).isEqualTo(HookPoint.FailPolicy.OPEN);
					});
				assertThat(runner.getWait().spinningNow()).isZero();
			});
	}

	private static ModelRequestPayload request(String text) {
		return new ModelRequestPayload(List.<Message>of(new UserMessage(text)), ModelSettings.empty(), List.of(), 1,
				"user-42", Map.of(), new Channel("rest", Map.of()));
	}

	/**
	 * A future that counts the wait's looks at it ({@link #isDone()}), and completes
	 * itself on a given look, or only once the wait parks on it ({@link #get()}).
	 */
	private static final class Looked<T> extends CompletableFuture<T> {

		private final int completeOnLook;

		private final T value;

		private int looks;

		private boolean parked;

		private Looked(int completeOnLook, T value) {
			this.completeOnLook = completeOnLook;
			this.value = value;
		}

		static <T> Looked<T> completingOnLook(int look, T value) {
			return new Looked<>(look, value);
		}

		static <T> Looked<T> completingWhenParked(T value) {
			return new Looked<>(Integer.MAX_VALUE, value);
		}

		@Override
		public boolean isDone() {
			this.looks++;
			if (this.looks == this.completeOnLook) {
				complete(this.value);
			}
			return super.isDone();
		}

		@Override
		public T get() throws InterruptedException, ExecutionException {
			if (!super.isDone()) {
				this.parked = true;
				complete(this.value);
			}
			return super.get();
		}

		int looks() {
			return this.looks;
		}

		boolean parked() {
			return this.parked;
		}

	}

	static class FaultyHooks {

		@ModifyModelRequest
		ModelRequestPayload crash(ModelRequestPayload request) {
			throw new IllegalStateException("settings store unavailable");
		}

		@ModifyToolResult
		ToolResultPayload overflow(ToolResultPayload result) {
			throw new StackOverflowError();
		}

		@ModifyOutgoingText
		@Nullable OutgoingTextPayload garbage(OutgoingTextPayload text) {
			return null;
		}

		@ModifyModelResponse(timeoutMs = 100)
		ModelResponsePayload hang(ModelResponsePayload response) {
			Stalls.parkIgnoringInterrupts(5_000);
			return response;
		}

	}

	static class QuickHook {

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			String text = request.messages().get(0).getText();
			return request.withMessages(List.of(new UserMessage(text.replace("4111", "[card]"))));
		}

	}

}
