package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import io.mantlehooks.HeldTranscriptStore;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The transcript's write queue: a turn hands its entries over and goes on; each
 * conversation's entries are written in order; a read of a conversation sees what was
 * handed over before it; what does not fit or cannot be written is counted and logged.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueuedTranscriptStoreTests {

	private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

	private final ExecutorService writers = Executors.newFixedThreadPool(4);

	private final CountDownLatch open = new CountDownLatch(1);

	private final GatedStore database = new GatedStore(this.open);

	@AfterEach
	void stop() {
		this.open.countDown();
		this.writers.shutdownNow();
	}

	private QueuedTranscriptStore queue(int capacity, Duration timeout) {
		StoreGuard guard = new StoreGuard("mantle.store.transcript", "transcript store", timeout,
				CircuitBreakerRegistry.ofDefaults(), TimeLimiterRegistry.ofDefaults(), new SimpleAsyncTaskExecutor());
		return new QueuedTranscriptStore(this.database, guard, capacity, this.writers, this.writers::shutdown);
	}

	@Test
	void appendDoesNotWaitForTheDatabaseAndAReadWaitsForTheWritesBeforeIt() throws Exception {
		QueuedTranscriptStore store = queue(100, Duration.ofSeconds(30));
		IntStream.range(0, 20).forEach((i) -> store.append(entry("c-1", "m" + i)));
		store.append(entry("c-2", "other"));
		assertThat(store.getPendingWrites()).isEqualTo(21);
		CompletableFuture<List<TranscriptEntry>> read = CompletableFuture.supplyAsync(() -> store.find("c-1"));
		assertThat(read).isNotDone();
		this.open.countDown();
		assertThat(read.get(30, TimeUnit.SECONDS)).extracting(TranscriptEntry::text)
			.containsExactlyElementsOf(IntStream.range(0, 20).mapToObj((i) -> "m" + i).toList());
		assertThat(store.getFailedWrites()).isZero();
	}

	@Test
	void aBusyConversationDoesNotKeepTheWriterFromTheOthers() throws Exception {
		ExecutorService oneWriter = Executors.newSingleThreadExecutor();
		CountDownLatch gate = new CountDownLatch(1);
		List<String> written = new CopyOnWriteArrayList<>();
		HeldTranscriptStore database = new HeldTranscriptStore() {
			@Override
			protected void hold(TranscriptEntry entry) {
				try {
					gate.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				written.add(entry.conversationId());
			}
		};
		StoreGuard guard = new StoreGuard("mantle.store.transcript", "transcript store", Duration.ofSeconds(30),
				CircuitBreakerRegistry.ofDefaults(), TimeLimiterRegistry.ofDefaults(), new SimpleAsyncTaskExecutor());
		QueuedTranscriptStore store = new QueuedTranscriptStore(database, guard, 1000, oneWriter, oneWriter::shutdown);
		try {
			int busy = 3 * QueuedTranscriptStore.TURN_SIZE;
			IntStream.range(0, busy).forEach((i) -> store.append(entry("busy", "m" + i)));
			store.append(entry("quiet", "hello"));
			gate.countDown();
			assertThat(store.find("quiet")).extracting(TranscriptEntry::text).containsExactly("hello");
			assertThat(store.find("busy")).extracting(TranscriptEntry::text)
				.containsExactlyElementsOf(IntStream.range(0, busy).mapToObj((i) -> "m" + i).toList());
			// the quiet conversation was written after the busy one's first turn, not
			// after all of it
			assertThat(written.indexOf("quiet")).isEqualTo(QueuedTranscriptStore.TURN_SIZE);
		}
		finally {
			gate.countDown();
			oneWriter.shutdownNow();
		}
	}

	@Test
	void whatDoesNotFitInTheQueueIsCountedAndLoggedWithItsTurn(CapturedOutput output) {
		QueuedTranscriptStore store = queue(2, Duration.ofSeconds(30));
		store.append(entry("c-1", "one"));
		store.append(entry("c-1", "two"));
		store.append(entry("c-1", "three"));
		assertThat(store.getFailedWrites()).isOne();
		assertThat(output).contains("Could not write the user message of turn t-three to the transcript: the "
				+ "transcript write queue is full (2 entries waiting); counted in mantle.transcript.writes.failed");
		this.open.countDown();
		assertThat(store.find("c-1")).extracting(TranscriptEntry::text).containsExactly("one", "two");
	}

	@Test
	void aWriteTheDatabaseDoesNotAnswerInTimeIsCountedAndTheNextOnesGoOn(CapturedOutput output) {
		QueuedTranscriptStore store = queue(100, Duration.ofMillis(200));
		store.append(entry("c-1", "stuck"));
		await().atMost(Duration.ofSeconds(30)).until(store::getFailedWrites, (failed) -> failed == 1);
		// the writer counts the failure before it logs it: wait for the line too
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(output)
				.contains("Could not write the user message of turn t-stuck to the transcript: The "
						+ "transcript store did not answer within 200ms (mantle.hooks.jdbc.query-timeout)"));
		this.open.countDown();
		store.append(entry("c-1", "later"));
		assertThat(store.find("c-1")).extracting(TranscriptEntry::text).containsExactly("later");
	}

	@Test
	void closingWritesWhatIsPendingAndRefusesNewEntries() {
		QueuedTranscriptStore store = queue(100, Duration.ofSeconds(60));
		store.append(entry("c-1", "last words"));
		this.open.countDown();
		store.destroy();
		assertThat(this.database.find("c-1")).extracting(TranscriptEntry::text).containsExactly("last words");
		store.append(entry("c-1", "too late"));
		assertThat(store.getFailedWrites()).isOne();
	}

	private static TranscriptEntry entry(String conversation, String text) {
		return new TranscriptEntry(conversation, "t-" + text, "user-1", "web", TranscriptRole.USER, text, false, null,
				NOW);
	}

	/**
	 * A database whose writes wait until it opens.
	 */
	static final class GatedStore extends HeldTranscriptStore {

		private final CountDownLatch open;

		GatedStore(CountDownLatch open) {
			this.open = open;
		}

		@Override
		protected void hold(TranscriptEntry entry) {
			try {
				this.open.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

	}

}
