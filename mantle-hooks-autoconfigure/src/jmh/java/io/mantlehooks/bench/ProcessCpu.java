package io.mantlehooks.bench;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

import com.sun.management.OperatingSystemMXBean;

/**
 * The measuring helpers the main-class benchmarks share: the process's CPU time (all its
 * threads: callers, hook threads, Reactor's, the garbage collector's), steadier than wall
 * time on a shared machine, and the median of measured rounds.
 */
final class ProcessCpu {

	private ProcessCpu() {
	}

	/**
	 * Return the CPU time the whole process has used so far.
	 * @return nanoseconds
	 */
	static long nanos() {
		return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
	}

	/**
	 * Return the median of the first values.
	 * @param values the values
	 * @param count how many of them were measured
	 * @return their median
	 */
	static double median(double[] values, int count) {
		double[] sorted = Arrays.copyOf(values, count);
		Arrays.sort(sorted);
		return sorted[count / 2];
	}

}
