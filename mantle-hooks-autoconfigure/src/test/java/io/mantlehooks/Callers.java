package io.mantlehooks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

import org.springframework.boot.system.JavaVersion;

/**
 * Threads for many concurrent callers of a {@code ChatClient}, as an application's server
 * would have them: a virtual thread per caller on Java 21 and later, a platform thread
 * per caller on 17.
 */
public final class Callers {

	private Callers() {
	}

	/**
	 * Return an executor that starts a thread per task.
	 * @param platformThreads how many platform threads to keep on Java 17 (where a
	 * virtual thread cannot be had)
	 * @return the executor; shut it down when done
	 */
	public static ExecutorService threadPerCaller(int platformThreads) {
		if (JavaVersion.getJavaVersion().isEqualOrNewerThan(JavaVersion.TWENTY_ONE)) {
			try {
				return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}
		return Executors.newFixedThreadPool(platformThreads);
	}

	/**
	 * Run the turns at once, each on its own caller thread, and return what each gave.
	 * All callers wait at one gate until every one of them was handed its turn, so the
	 * turns arrive together.
	 * @param <T> what a turn gives
	 * @param turns how many turns
	 * @param turn the turn, given its index
	 * @return each turn's result, in index order
	 * @throws InterruptedException if the test's thread was interrupted meanwhile
	 * @throws AssertionError if a turn threw or the burst did not finish in five minutes
	 */
	public static <T> List<T> burst(int turns, IntFunction<T> turn) throws InterruptedException {
		ExecutorService callers = threadPerCaller(turns);
		CountDownLatch start = new CountDownLatch(1);
		List<CompletableFuture<T>> results = new ArrayList<>();
		try {
			for (int i = 0; i < turns; i++) {
				int index = i;
				results.add(CompletableFuture.supplyAsync(() -> {
					awaitUninterruptibly(start);
					return turn.apply(index);
				}, callers));
			}
			start.countDown();
			CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new AssertionError("the burst did not finish", ex);
		}
		finally {
			callers.shutdownNow();
		}
		return results.stream().map(CompletableFuture::join).toList();
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			// the turn still runs; its caller keeps the interrupt
			Thread.currentThread().interrupt();
		}
	}

}
