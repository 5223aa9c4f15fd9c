package io.mantlehooks.runtime.execution;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * The hook executor on virtual threads (Spring Boot's
 * {@code spring.threads.virtual.enabled}): a {@link HookThreadPool} whose threads are
 * virtual, so a hook that blocks holds no platform thread, except while one of its hooks
 * that outlived its timeout still runs. Virtual threads are not preempted: a hook that
 * spins on the CPU ignoring interrupts (a runaway regular expression, a busy loop) holds
 * its carrier thread until it returns, and with as many of them as the machine has cores
 * every virtual thread of the application waits. So while such a hook still runs, new
 * hooks run on a pool of platform threads, which the operating system time-slices; when
 * the last one returns, hooks go back to virtual threads.
 */
public final class VirtualHookExecutor implements AsyncTaskExecutor, DisposableBean {

	private final HookThreadPool virtual;

	private final HookThreadPool platform;

	/**
	 * Create the executor.
	 * @param threadNamePrefix the name prefix of its threads, both kinds
	 * @param poolSize how many hooks run at once, on either kind of thread
	 */
	public VirtualHookExecutor(String threadNamePrefix, int poolSize) {
		this.virtual = new HookThreadPool(threadNamePrefix, poolSize,
				new VirtualThreadTaskExecutor(threadNamePrefix).getVirtualThreadFactory());
		this.virtual.initialize();
		this.platform = new HookThreadPool(threadNamePrefix + "p-", poolSize);
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
	 * Return how many of its virtual threads run a hook that outlived its timeout.
	 * @return the abandoned virtual threads
	 */
	public int getAbandoned() {
		return this.virtual.getAbandoned();
	}

	@Override
	public void execute(Runnable task) {
		if (this.virtual.getAbandoned() > 0) {
			this.platform.execute(task);
		}
		else {
			this.virtual.execute(task);
		}
	}

	@Override
	public void destroy() {
		this.virtual.shutdown();
		this.platform.shutdown();
	}

}
