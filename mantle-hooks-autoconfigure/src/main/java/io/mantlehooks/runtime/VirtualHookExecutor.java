package io.mantlehooks.runtime;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The hook executor on Java 21 and later: a virtual thread per task, except while a hook
 * that outlived its timeout still runs. Virtual threads are not preempted: a hook that
 * spins on the CPU ignoring interrupts (a runaway regular expression, a busy loop) holds
 * its carrier thread until it returns, and with as many of them as the machine has cores
 * every other virtual thread waits, the other turns' hooks included. So while any
 * abandoned invocation is still running, new tasks run on platform threads, which the
 * operating system time-slices; when the last one ends, tasks go back to virtual threads.
 */
public final class VirtualHookExecutor implements AsyncTaskExecutor, DisposableBean {

	/** Abandoned invocations still running, in this JVM: carriers are shared by all. */
	private static final AtomicInteger stragglers = new AtomicInteger();

	private final SimpleAsyncTaskExecutor virtual;

	private final ThreadPoolTaskExecutor platform;

	/**
	 * Create the executor.
	 * @param threadNamePrefix the name prefix of its threads, both kinds
	 */
	public VirtualHookExecutor(String threadNamePrefix) {
		this.virtual = new SimpleAsyncTaskExecutor(threadNamePrefix);
		this.virtual.setVirtualThreads(true);
		this.platform = new ThreadPoolTaskExecutor();
		this.platform.setThreadNamePrefix(threadNamePrefix + "p-");
		this.platform.setCorePoolSize(0);
		this.platform.setQueueCapacity(0);
		this.platform.setKeepAliveSeconds(60);
		this.platform.setDaemon(true);
		this.platform.initialize();
	}

	/**
	 * Return the prefix of its threads' names.
	 * @return the prefix
	 */
	public String getThreadNamePrefix() {
		return this.virtual.getThreadNamePrefix();
	}

	/**
	 * Return how many hook invocations outlived their timeout and still run, in this JVM.
	 * @return the number of stragglers
	 */
	public static int stragglers() {
		return stragglers.get();
	}

	@Override
	public void execute(Runnable task) {
		if (stragglers.get() > 0) {
			this.platform.execute(task);
		}
		else {
			this.virtual.execute(task);
		}
	}

	@Override
	public void destroy() {
		this.platform.shutdown();
	}

	/** An invocation was abandoned while its method still runs. */
	static void straggling() {
		stragglers.incrementAndGet();
	}

	/** An abandoned invocation's method returned at last. */
	static void caughtUp() {
		stragglers.decrementAndGet();
	}

}
