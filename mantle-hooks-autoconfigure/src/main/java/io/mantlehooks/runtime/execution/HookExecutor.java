package io.mantlehooks.runtime.execution;

import org.springframework.core.task.AsyncTaskExecutor;

/**
 * The hook executor of the starter: an {@link AsyncTaskExecutor} that is told when a
 * hook's thread is abandoned (the hook outlived its timeout while its method still runs)
 * and when that method returns at last, so that the thread does not count against the
 * capacity healthy hooks get. An application's own executor bean need not implement it;
 * then abandoned threads simply hold their place until they return.
 */
public interface HookExecutor extends AsyncTaskExecutor {

	/**
	 * A hook invocation outlived its timeout while its method still runs on a thread of
	 * this executor.
	 * @param thread the thread that still runs it
	 */
	void abandoned(Thread thread);

	/**
	 * The method of an invocation that was {@link #abandoned} returned; called on its
	 * thread.
	 * @param thread the thread, free again
	 */
	void returned(Thread thread);

}
