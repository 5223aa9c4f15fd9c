package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import io.mantlehooks.autoconfigure.StoreGuard.StoreUnavailableException;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.Assert;

/**
 * A database transcript written off the turn's thread: {@link #append} puts the entry in
 * a bounded queue and returns; each conversation's entries are written in order, one at a
 * time, every write bounded by a {@link StoreGuard}. What cannot be written (the queue is
 * full, the database failed or did not answer in time, its breaker is open) is not
 * retried: it is counted ({@link #getFailedWrites()}, the meter
 * {@code mantle.transcript.writes.failed}) and logged with its turn id.
 * <p>
 * Reads and deletes of a conversation first wait for the writes of that conversation
 * pending at the time, so what a turn wrote is read back by the same instance once the
 * turn ended (read-your-writes; another instance sees it once it is written).
 */
final class QueuedTranscriptStore implements TranscriptStore, DisposableBean {

	/** Entries one lane writes before it lets the other conversations' lanes go first. */
	static final int TURN_SIZE = 16;

	private static final Log logger = LogFactory.getLog(QueuedTranscriptStore.class);

	private final TranscriptStore delegate;

	private final StoreGuard guard;

	private final int capacity;

	private final Executor writers;

	private final Runnable shutdown;

	private final Object lock = new Object();

	/** The conversations with a writer; guarded by {@link #lock}. */
	private final Map<String, Lane> lanes = new HashMap<>();

	/** Entries waiting or being written, over all conversations; guarded by the lock. */
	private int pending;

	private boolean closed;

	private final AtomicLong failed = new AtomicLong();

	/**
	 * Create the store.
	 * @param delegate where entries are written and read
	 * @param guard bounds every call of the delegate
	 * @param capacity how many entries may wait at once
	 * @param writers the threads that write; one task per conversation with pending
	 * entries
	 * @param shutdown stops the writers' threads when the store closes
	 */
	QueuedTranscriptStore(TranscriptStore delegate, StoreGuard guard, int capacity, Executor writers,
			Runnable shutdown) {
		Assert.isTrue(capacity > 0, "'capacity' must be positive");
		this.delegate = delegate;
		this.guard = guard;
		this.capacity = capacity;
		this.writers = writers;
		this.shutdown = shutdown;
	}

	TranscriptStore delegate() {
		return this.delegate;
	}

	/**
	 * Return how many entries could not be written since the application started.
	 * @return the failed writes
	 */
	long getFailedWrites() {
		return this.failed.get();
	}

	/**
	 * Return how many entries wait to be written, or are being written.
	 * @return the pending writes
	 */
	int getPendingWrites() {
		synchronized (this.lock) {
			return this.pending;
		}
	}

	@Override
	public void append(TranscriptEntry entry) {
		Assert.notNull(entry, "'entry' must not be null");
		String conversation = entry.conversationId();
		Lane started = null;
		String refused = null;
		synchronized (this.lock) {
			if (this.closed) {
				refused = "the application is shutting down";
			}
			else if (this.pending >= this.capacity) {
				refused = "the transcript write queue is full (" + this.capacity + " entries waiting)";
			}
			else {
				Lane lane = this.lanes.get(conversation);
				if (lane == null) {
					lane = new Lane(conversation);
					this.lanes.put(conversation, lane);
					started = lane;
				}
				lane.entries.add(entry);
				lane.enqueued++;
				this.pending++;
			}
			if (refused != null) {
				this.failed.incrementAndGet();
			}
		}
		if (refused != null) {
			logFailed(entry, refused, null);
		}
		else if (started != null) {
			Lane lane = started;
			try {
				this.writers.execute(() -> drain(lane));
			}
			catch (RejectedExecutionException ex) {
				logFailed(abandon(List.of(lane)), "no writer thread took it", ex);
			}
		}
	}

	/**
	 * Write a conversation's entries, oldest first, until none is left. After
	 * {@link #TURN_SIZE} entries the lane goes to the back of the writers' queue (it
	 * stays the conversation's only lane, so its order holds): a conversation that never
	 * runs dry does not keep a writer from the others.
	 */
	private void drain(Lane lane) {
		for (int written = 0;; written++) {
			TranscriptEntry next;
			synchronized (this.lock) {
				next = lane.entries.peek();
				if (next == null || lane.abandoned) {
					this.lanes.remove(lane.conversation, lane);
					this.lock.notifyAll();
					return;
				}
			}
			if (written == TURN_SIZE) {
				try {
					this.writers.execute(() -> drain(lane));
				}
				catch (RejectedExecutionException ex) {
					logFailed(abandon(List.of(lane)), "no writer thread took it", ex);
				}
				return;
			}
			Throwable error = null;
			try {
				this.guard.run(() -> this.delegate.append(next));
			}
			catch (RuntimeException | Error ex) {
				error = ex;
			}
			synchronized (this.lock) {
				if (lane.abandoned) {
					// counted when it was abandoned
					return;
				}
				lane.entries.poll();
				lane.written++;
				this.pending--;
				if (error != null) {
					this.failed.incrementAndGet();
				}
				this.lock.notifyAll();
			}
			if (error != null) {
				logFailed(List.of(next), error.getMessage(), error);
			}
		}
	}

	/**
	 * Give up the entries of these lanes, counting them as failed.
	 * @return the entries given up, to log
	 */
	private List<TranscriptEntry> abandon(Collection<Lane> lanes) {
		List<TranscriptEntry> lost = new ArrayList<>();
		synchronized (this.lock) {
			for (Lane lane : List.copyOf(lanes)) {
				lost.addAll(lane.entries);
				lane.written += lane.entries.size();
				this.pending -= lane.entries.size();
				lane.entries.clear();
				lane.abandoned = true;
				this.lanes.remove(lane.conversation, lane);
			}
			this.failed.addAndGet(lost.size());
			this.lock.notifyAll();
		}
		return lost;
	}

	private void logFailed(TranscriptEntry entry, @Nullable String reason, @Nullable Throwable ex) {
		logFailed(List.of(entry), reason, ex);
	}

	private void logFailed(List<TranscriptEntry> entries, @Nullable String reason, @Nullable Throwable ex) {
		for (TranscriptEntry entry : entries) {
			String message = "Could not write the " + entry.role().name().toLowerCase(Locale.ROOT) + " message of turn "
					+ entry.turnId() + " to the transcript: " + reason + "; counted in "
					+ MantleHooksMetricsAutoConfiguration.TRANSCRIPT_WRITES_FAILED_METER;
			// a time-out or an open breaker says all there is; anything else gets
			// its trace
			if (ex == null || ex instanceof StoreUnavailableException) {
				logger.warn(message);
			}
			else {
				logger.warn(message, ex);
			}
		}
	}

	@Override
	public List<TranscriptEntry> find(String conversationId) {
		awaitPendingWrites(conversationId);
		return this.guard.call(() -> this.delegate.find(conversationId));
	}

	@Override
	public void delete(String conversationId) {
		awaitPendingWrites(conversationId);
		this.guard.run(() -> this.delegate.delete(conversationId));
	}

	/**
	 * Wait until the entries of a conversation that are pending now are written or
	 * failed. Each write ends within the time limit (at once while the breaker is open),
	 * so this wait is bounded by the conversation's pending entries and, as lanes take
	 * turns of {@link #TURN_SIZE} entries, by the other conversations' turns ahead of it.
	 */
	private void awaitPendingWrites(String conversationId) {
		synchronized (this.lock) {
			Lane lane = this.lanes.get(conversationId);
			if (lane == null) {
				return;
			}
			long target = lane.enqueued;
			try {
				while (lane.written < target && this.lanes.get(conversationId) == lane) {
					this.lock.wait();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Give pending entries a moment to be written (a few time limits), count the rest as
	 * failed, and stop the writers.
	 */
	@Override
	public void destroy() {
		long deadline = System.nanoTime() + this.guard.timeout().multipliedBy(3).plus(Duration.ofSeconds(1)).toNanos();
		List<TranscriptEntry> lost;
		synchronized (this.lock) {
			this.closed = true;
			try {
				long left = deadline - System.nanoTime();
				while (this.pending > 0 && left > 0) {
					this.lock.wait(Math.max(1, left / 1_000_000));
					left = deadline - System.nanoTime();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			lost = abandon(this.lanes.values());
		}
		logFailed(lost, "the application shut down before it was written", null);
		this.shutdown.run();
	}

	/**
	 * One conversation's pending entries; exists while they are being written.
	 */
	private static final class Lane {

		final String conversation;

		final ArrayDeque<TranscriptEntry> entries = new ArrayDeque<>();

		long enqueued;

		long written;

		boolean abandoned;

		Lane(String conversation) {
			this.conversation = conversation;
		}

	}

}
