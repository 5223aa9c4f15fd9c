package io.mantlehooks.runtime.execution;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * The hook executor on virtual threads (Spring Boot's
 * {@code spring.threads.virtual.enabled}): a virtual thread per hook, except while a hook
 * that outlived its timeout still runs. Virtual threads are not preempted: a hook that
 * spins on the CPU ignoring interrupts (a runaway regular expression, a busy loop) holds
 * its carrier thread until it returns, and with as many of them as the machine has cores
 * every virtual thread of the application waits. So while one of this executor's hooks is
 * abandoned and still running, new hooks run on a {@link HookThreadPool}, whose threads
 * the operating system time-slices; when the last one returns, hooks go back to virtual
 * threads.
 */
public final class VirtualHookExecutor implements HookExecutor, DisposableBean {

	private final SimpleAsyncTaskExecutor virtual;

	private final HookThreadPool platform;

	/** This executor's abandoned invocations whose methods still run. */
	private final AtomicInteger abandoned = new AtomicInteger();

	/**
	 * Create the executor.
	 * @param threadNamePrefix the name prefix of its threads, both kinds
	 * @param poolSize the size of the platform pool used while a hook is abandoned
	 */
	public VirtualHookExecutor(String threadNamePrefix, int poolSize) {
		this.virtual = new SimpleAsyncTaskExecutor(threadNamePrefix);
		this.virtual.setVirtualThreads(true);
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
	 * Return how many of this executor's hook invocations outlived their timeout and
	 * still run.
	 * @return the number of abandoned invocations
	 */
	public int getAbandoned() {
		return this.abandoned.get();
	}

	@Override
	public void execute(Runnable task) {
		if (this.abandoned.get() > 0) {
			this.platform.execute(task);
		}
		else {
			this.virtual.execute(task);
		}
	}

	@Override
	public void abandoned(Thread thread) {
		this.abandoned.incrementAndGet();
		this.platform.abandoned(thread);
	}

	@Override
	public void returned(Thread thread) {
		this.abandoned.decrementAndGet();
		this.platform.returned(thread);
	}

	@Override
	public void destroy() {
		this.platform.shutdown();
	}

}
