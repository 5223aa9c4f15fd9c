package io.mantlehooks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Threads that keep the processors busy until stopped: a neighbour that saturates the
 * machine while turns run.
 */
public final class Burners {

	private final AtomicBoolean burning = new AtomicBoolean(true);

	private final List<Thread> threads = new ArrayList<>();

	/**
	 * Start burning.
	 * @param count how many threads burn
	 */
	public Burners(int count) {
		for (int i = 0; i < count; i++) {
			Thread thread = new Thread(this::burn, "cpu-burner-" + i);
			thread.setDaemon(true);
			thread.start();
			this.threads.add(thread);
		}
	}

	private void burn() {
		long x = 1;
		while (this.burning.get()) {
			x = x * 31 + 7;
		}
		if (x == 42) {
			System.out.print("");
		}
	}

	/**
	 * Return the CPU the burner threads used so far, to leave out of a measurement.
	 * @return the nanoseconds
	 */
	public long cpuNanos() {
		ThreadMXBean bean = ManagementFactory.getThreadMXBean();
		long total = 0;
		for (Thread thread : this.threads) {
			total += Math.max(0, bean.getThreadCpuTime(thread.getId()));
		}
		return total;
	}

	/**
	 * Stop burning and wait for the threads to end.
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void stop() throws InterruptedException {
		this.burning.set(false);
		for (Thread thread : this.threads) {
			thread.join();
		}
	}

}
