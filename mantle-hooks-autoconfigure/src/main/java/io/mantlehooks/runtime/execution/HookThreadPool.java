package io.mantlehooks.runtime.execution;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.Assert;

/**
 * The hook executor on platform threads: at most {@code pool-size} threads in front of a
 * queue, grown as Tomcat's connector grows its pool: a hook goes to an idle thread if
 * there is one, else to a new thread while the pool is below its size, else into the
 * queue. That wait is never counted against the hook's timeout, so a busy machine slows
 * turns down instead of failing their hooks, and never starts more threads than the pool
 * holds. Threads idle for a minute end.
 * <p>
 * Two kinds of threads are replaced while they last, so that they cannot take the pool
 * from healthy hooks: a thread {@link #abandoned} by a hook that outlived its timeout and
 * still runs (a hook holds at most {@code max-concurrent} of them before it is refused),
 * and a hook thread that waits for the hooks of a call its hook made (an LLM judge's
 * nested turn, {@link #await}).
 */
public class HookThreadPool extends ThreadPoolTaskExecutor implements HookExecutor {

	private static final long serialVersionUID = 1L;

	private static final Runnable NOTHING = () -> {
	};

	private final int poolSize;

	/** Hooks handed to the pool and not finished: running or queued. */
	private final AtomicInteger pending = new AtomicInteger();

	private final Object resizeLock = new Object();

	/** Threads that do not count against the pool now: abandoned or waiting. */
	private int replaced;

	/**
	 * Create the pool; {@link #initialize()} starts it.
	 * @param threadNamePrefix the prefix of its threads' names
	 * @param poolSize how many threads run hooks at once
	 */
	public HookThreadPool(String threadNamePrefix, int poolSize) {
		Assert.isTrue(poolSize > 0, "'poolSize' must be positive");
		this.poolSize = poolSize;
		setThreadNamePrefix(threadNamePrefix);
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
	 * Return how many threads run hooks at once, abandoned and waiting threads not
	 * counted.
	 * @return the pool size
	 */
	public int getHookPoolSize() {
		return this.poolSize;
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
				try {
					task.run();
				}
				finally {
					this.pending.decrementAndGet();
				}
			});
		}
		catch (RuntimeException ex) {
			this.pending.decrementAndGet();
			throw ex;
		}
	}

	@Override
	public Thread createThread(Runnable runnable) {
		Thread thread = new HookThread(this, getThreadGroup(), runnable, nextThreadName());
		thread.setPriority(getThreadPriority());
		thread.setDaemon(isDaemon());
		return thread;
	}

	@Override
	public void abandoned(Thread thread) {
		if (owns(thread)) {
			resize(1);
		}
	}

	@Override
	public void returned(Thread thread) {
		if (owns(thread)) {
			resize(-1);
		}
	}

	private boolean owns(Thread thread) {
		return thread instanceof HookThread hookThread && hookThread.pool == this;
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
		if (future.isDone() || !(Thread.currentThread() instanceof HookThread thread)) {
			return future.get();
		}
		thread.pool.resize(1);
		try {
			return future.get();
		}
		finally {
			thread.pool.resize(-1);
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

	/**
	 * A thread of a hook pool, which knows its pool.
	 */
	private static final class HookThread extends Thread {

		private final HookThreadPool pool;

		HookThread(HookThreadPool pool, ThreadGroup group, Runnable runnable, String name) {
			super(group, runnable, name);
			this.pool = pool;
		}

	}

}
