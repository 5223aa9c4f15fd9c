package io.mantlehooks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

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

}
