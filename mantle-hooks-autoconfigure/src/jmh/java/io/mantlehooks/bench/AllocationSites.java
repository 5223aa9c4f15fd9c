package io.mantlehooks.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a turn allocates, by site: runs {@link TurnBenchmark}'s turns in a JVM started
 * without thread-local allocation buffers, so that JFR records every allocation that
 * escape analysis leaves (an {@code ObjectAllocationOutsideTLAB} event each, with its
 * stack), and prints the bytes per turn of the sites that allocate most, attributed to
 * the first frame of the given package prefix (or the allocating frame). Only for finding
 * sites; the bytes per turn come from {@code TurnBenchmark -prof gc}.
 * <p>
 * {@code JAVA_TOOL_OPTIONS="-XX:-UseTLAB" mvn -B -ntp -Pbenchmarks -pl
 * mantle-hooks-autoconfigure -am verify -DskipTests
 * -Dbench.main=io.mantlehooks.bench.AllocationSites -Dbench.args="blockingHook stream
 * io.mantlehooks 40"}
 */
public final class AllocationSites {

	private AllocationSites() {
	}

	public static void main(String[] args) throws Exception {
		String variant = args[0];
		boolean stream = "stream".equals(args[1]);
		String prefix = (args.length > 2) ? args[2] : "io.mantlehooks";
		int top = (args.length > 3) ? Integer.parseInt(args[3]) : 40;
		int turns = 2000;
		TurnBenchmark benchmark = new TurnBenchmark();
		benchmark.variant = variant;
		benchmark.setUp();
		try {
			for (int i = 0; i < 30_000; i++) {
				run(benchmark, stream);
			}
			Path file = Files.createTempFile("allocation-sites", ".jfr");
			try (Recording recording = new Recording()) {
				recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
				recording.start();
				for (int i = 0; i < turns; i++) {
					run(benchmark, stream);
				}
				recording.stop();
				recording.dump(file);
			}
			report(file, prefix, top, turns);
			Files.deleteIfExists(file);
		}
		finally {
			benchmark.tearDown();
		}
	}

	private static void run(TurnBenchmark benchmark, boolean stream) throws Exception {
		if (stream) {
			benchmark.stream();
		}
		else {
			benchmark.call();
		}
	}

	private static void report(Path file, String prefix, int top, int turns) throws Exception {
		Map<String, long[]> bySite = new HashMap<>();
		Map<String, long[]> byClass = new HashMap<>();
		long total = 0;
		String stackOf = System.getProperty("sites.stack");
		Map<String, long[]> stacks = new HashMap<>();
		for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
			long size = event.getLong("allocationSize");
			String type = event.getClass("objectClass").getName();
			total += size;
			String site = site(event, prefix);
			add(bySite, type + " <- " + site, size);
			add(byClass, type, size);
			if (stackOf != null && (type + " <- " + site).contains(stackOf)) {
				StringBuilder stack = new StringBuilder(type);
				for (RecordedFrame frame : event.getStackTrace().getFrames()) {
					stack.append("\n      ").append(frameName(frame));
				}
				add(stacks, stack.toString(), size);
			}
		}
		System.out.printf("total %.1f KB per turn (events in JFR, escape analysis applies)%n",
				total / 1024.0 / turns);
		print("sites", bySite, top, turns);
		String out = System.getProperty("sites.out");
		if (out != null) {
			List<String> lines = new ArrayList<>();
			bySite.forEach((site, entry) -> lines.add(String.format("%.1f\t%.2f\t%s", (double) entry[0] / turns,
					(double) entry[1] / turns, site)));
			Files.write(Path.of(out), lines);
		}
		print("types", byClass, 25, turns);
		if (stackOf != null) {
			print("stacks", stacks, 6, turns);
		}
	}

	private static String site(RecordedEvent event, String prefix) {
		if (event.getStackTrace() == null) {
			return "?";
		}
		List<RecordedFrame> frames = event.getStackTrace().getFrames();
		StringBuilder site = new StringBuilder(frames.isEmpty() ? "?" : frameName(frames.get(0)));
		int shown = 0;
		for (RecordedFrame frame : frames.subList(Math.min(1, frames.size()), frames.size())) {
			String type = frame.getMethod().getType().getName();
			boolean library = type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.");
			if (!library && shown < 2) {
				site.append(" < ").append(frameName(frame));
				shown++;
			}
			if (type.startsWith(prefix) && !type.startsWith("io.mantlehooks.bench")) {
				if (shown >= 2) {
					site.append(" .. ").append(frameName(frame));
				}
				break;
			}
		}
		return site.toString();
	}

	private static String frameName(RecordedFrame frame) {
		return shortName(frame.getMethod().getType().getName()) + "." + frame.getMethod().getName() + ":"
				+ frame.getLineNumber();
	}

	private static String shortName(String type) {
		int dot = type.lastIndexOf('.');
		return type.substring(dot + 1);
	}

	private static void add(Map<String, long[]> map, String key, long size) {
		long[] entry = map.computeIfAbsent(key, (k) -> new long[2]);
		entry[0] += size;
		entry[1]++;
	}

	private static void print(String title, Map<String, long[]> map, int top, int turns) {
		List<Map.Entry<String, long[]>> entries = new ArrayList<>(map.entrySet());
		entries.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
		System.out.println("== " + title);
		for (Map.Entry<String, long[]> entry : entries.subList(0, Math.min(top, entries.size()))) {
			System.out.printf("%8.0f B %6.2f objs  %s%n", (double) entry.getValue()[0] / turns,
					(double) entry.getValue()[1] / turns, entry.getKey());
		}
	}

}
