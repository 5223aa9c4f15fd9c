package io.mantlehooks.runtime.execution;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.Assert;

/**
 * The hook executor: at most {@code pool-size} hooks run at once, on platform threads or
 * on virtual ones, in front of a queue. The pool grows as Tomcat's connector grows its
 * pool: a hook goes to an idle thread if there is one, else to a new thread while the
 * pool is below its size, else into the queue. Waiting in the queue is never counted
 * against a hook's timeout, which starts with its method; so a busy machine slows turns
 * down instead of failing their hooks, and a burst of turns does not start more hooks at
 * once than the pool holds, where each would wait for a processor inside its own timeout.
 * Threads idle for a minute end.
 * <p>
 * Two kinds of threads are replaced while they last, so that they cannot take the pool
 * from healthy hooks: a thread abandoned by a hook that outlived its timeout and still
 * runs (a hook holds at most {@code max-concurrent} of them before it is refused), and a
 * hook's thread that waits for the hooks of a model call its hook made (an LLM judge's
 * nested turn, {@link #await}).
 */
public class HookThreadPool extends ThreadPoolTaskExecutor {

	private static final long serialVersionUID = 1L;

	/** The pool that runs the current thread's task, while it runs it. */
	private static final ThreadLocal<HookThreadPool> RUNNING = new ThreadLocal<>();

	private static final Runnable NOTHING = () -> {
	};

	private final int poolSize;

	/** Hooks handed to the pool and not finished: running or queued. */
	private final AtomicInteger pending = new AtomicInteger();

	/** Threads whose hook outlived its timeout and still runs. */
	private final AtomicInteger abandoned = new AtomicInteger();

	private final Object resizeLock = new Object();

	/** Threads that do not count against the pool now: abandoned or waiting. */
	private int replaced;

	/**
	 * Create a pool of platform threads; {@link #initialize()} starts it.
	 * @param threadNamePrefix the prefix of its threads' names
	 * @param poolSize how many hooks run at once
	 */
	public HookThreadPool(String threadNamePrefix, int poolSize) {
		this(threadNamePrefix, poolSize, null);
	}

	/**
	 * Create a pool; {@link #initialize()} starts it.
	 * @param threadNamePrefix the prefix of its threads' names
	 * @param poolSize how many hooks run at once
	 * @param threadFactory what makes its threads (virtual ones, say), {@code null} for
	 * platform threads named with the prefix
	 */
	public HookThreadPool(String threadNamePrefix, int poolSize, @Nullable ThreadFactory threadFactory) {
		Assert.isTrue(poolSize > 0, "'poolSize' must be positive");
		this.poolSize = poolSize;
		setThreadNamePrefix(threadNamePrefix);
		if (threadFactory != null) {
			setThreadFactory(threadFactory);
		}
		// no thread kept when idle; up to poolSize while hooks wait
		setCorePoolSize(0);
		setMaxPoolSize(poolSize);
		setQueueCapacity(Integer.MAX_VALUE);
		setKeepAliveSeconds(60);
		setDaemon(true);
		// what the queue turned away while the pool grew to its size: queued after all
		setRejectedExecutionHandler((task, executor) -> {
			if (executor.isShutdown() || !((GrowFirstQueue) executor.getQueue()).enqueue(task)) {
				throw new RejectedExecutionException("The hook executor is shut down");
			}
		});
	}

	/**
	 * Return how many hooks run at once, abandoned and waiting threads not counted.
	 * @return the pool size
	 */
	public int getHookPoolSize() {
		return this.poolSize;
	}

	/**
	 * Return how many of the pool's threads run a hook that outlived its timeout.
	 * @return the abandoned threads now
	 */
	public int getAbandoned() {
		return this.abandoned.get();
	}

	@Override
	protected BlockingQueue<Runnable> createQueue(int queueCapacity) {
		return new GrowFirstQueue();
	}

	@Override
	public void execute(Runnable task) {
		this.pending.incrementAndGet();
		try {
			super.execute(() -> {
				RUNNING.set(this);
				try {
					task.run();
				}
				finally {
					RUNNING.remove();
					this.pending.decrementAndGet();
				}
			});
		}
		catch (RuntimeException ex) {
			this.pending.decrementAndGet();
			throw ex;
		}
	}

	/**
	 * Return the pool whose task the current thread runs.
	 * @return the pool, {@code null} on any other thread
	 */
	static @Nullable HookThreadPool running() {
		return RUNNING.get();
	}

	/**
	 * The current task's hook outlived its timeout while its method still runs on this
	 * thread: replace the thread until {@link #threadReturned()}.
	 */
	void threadAbandoned() {
		this.abandoned.incrementAndGet();
		resize(1);
	}

	/**
	 * The method of a hook whose thread was {@link #threadAbandoned() abandoned}
	 * returned.
	 */
	void threadReturned() {
		this.abandoned.decrementAndGet();
		resize(-1);
	}

	/**
	 * Let the pool hold more (or again fewer) threads. A hook already queued behind the
	 * replaced thread gets its replacement at once: an empty task goes the way any hook
	 * goes when no thread is idle and the pool may grow, to a new thread, which then
	 * takes the queued hook.
	 */
	private void resize(int change) {
		synchronized (this.resizeLock) {
			this.replaced += change;
			setMaxPoolSize(this.poolSize + this.replaced);
		}
		if (change > 0 && !getThreadPoolExecutor().getQueue().isEmpty()) {
			execute(NOTHING);
		}
	}

	/**
	 * Wait for a future. On a thread of a hook pool (a hook that made a model call whose
	 * hooks it now waits for) the pool gets another thread while this one waits, so that
	 * those hooks never wait for the thread that waits for them.
	 * @param <T> the result type
	 * @param future the future
	 * @return its value
	 * @throws InterruptedException when the thread is interrupted while it waits
	 * @throws ExecutionException when the future completed exceptionally
	 */
	public static <T> T await(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
		HookThreadPool pool = (future.isDone()) ? null : RUNNING.get();
		if (pool == null) {
			return future.get();
		}
		pool.resize(1);
		try {
			return future.get();
		}
		finally {
			pool.resize(-1);
		}
	}

	/**
	 * The pool's queue: it turns a hook away, so that the pool starts a thread for it,
	 * while the pool is below its size and has no idle thread.
	 */
	private final class GrowFirstQueue extends LinkedBlockingQueue<Runnable> {

		private static final long serialVersionUID = 1L;

		@Override
		public boolean offer(Runnable task) {
			ThreadPoolExecutor executor = getThreadPoolExecutor();
			int threads = executor.getPoolSize();
			if (threads < executor.getMaximumPoolSize() && HookThreadPool.this.pending.get() > threads) {
				return false;
			}
			return super.offer(task);
		}

		boolean enqueue(Runnable task) {
			return super.offer(task);
		}

	}

}
