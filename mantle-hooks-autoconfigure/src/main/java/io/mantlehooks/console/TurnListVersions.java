package io.mantlehooks.console;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Versions of the recorder's list of turns, so that a console that polls it is sent only
 * what changed since its last poll. Every change (a turn started, an invocation recorded,
 * a turn finished, a turn evicted) takes the next number. A version as a client sees it
 * is that number after this list's epoch, random per recorder ({@code 3f2a9c1b.42}): a
 * version from before a restart, or from another instance, is of another epoch and gets
 * the whole list. The turns evicted are remembered, as many as the list holds, so that a
 * poll can name those that left; a client further behind gets the whole list.
 */
final class TurnListVersions {

	private static final Pattern VERSION = Pattern.compile("([0-9a-z]+)\\.([0-9]{1,18})");

	private final String epoch = UUID.randomUUID().toString().substring(0, 8);

	private final AtomicLong counter = new AtomicLong();

	private final int remembered;

	/** The turns evicted, oldest first; guarded by this. */
	private final Deque<Eviction> evictions = new ArrayDeque<>();

	/** The version of the newest eviction no longer remembered; guarded by this. */
	private long forgotten;

	/**
	 * Create the versions of a list.
	 * @param remembered how many evicted turns to remember
	 */
	TurnListVersions(int remembered) {
		this.remembered = remembered;
	}

	/**
	 * Return the next version, for a change made now (taken while the changed turn is
	 * locked, so a poll that read an older current version sees the change).
	 */
	long next() {
		return this.counter.incrementAndGet();
	}

	/** Return the newest version taken. */
	long current() {
		return this.counter.get();
	}

	/**
	 * Record that a turn left the list.
	 * @param turnId the turn
	 */
	synchronized void evicted(String turnId) {
		// the version is taken under this lock: a poll that read a later current
		// version finds the eviction here
		this.evictions.addLast(new Eviction(next(), turnId));
		if (this.evictions.size() > this.remembered) {
			this.forgotten = this.evictions.removeFirst().version();
		}
	}

	/**
	 * Return the turns evicted after a version.
	 * @param version the version
	 * @return their ids, oldest first; {@code null} when some of them are no longer
	 * remembered
	 */
	synchronized @Nullable List<String> evictedSince(long version) {
		if (version < this.forgotten) {
			return null;
		}
		List<String> ids = new ArrayList<>();
		for (Eviction eviction : this.evictions) {
			if (eviction.version() > version) {
				ids.add(eviction.turnId());
			}
		}
		return ids;
	}

	/**
	 * Return a version as clients see it.
	 * @param version the version
	 * @return the version with this list's epoch
	 */
	String format(long version) {
		return this.epoch + "." + version;
	}

	/**
	 * Read a version a client sent.
	 * @param version what the client sent
	 * @param current the current version
	 * @return the version, {@code -1} when it is of another epoch
	 * @throws IllegalArgumentException when it is no version of a list, or one this list
	 * has not reached
	 */
	long parse(String version, long current) {
		Matcher matcher = VERSION.matcher(version);
		if (!matcher.matches()) {
			throw new IllegalArgumentException(
					"Not a version of the turn list: send the 'version' of an earlier answer, e.g. " + format(current));
		}
		if (!matcher.group(1).equals(this.epoch)) {
			return -1;
		}
		long number = Long.parseLong(matcher.group(2));
		if (number > current) {
			throw new IllegalArgumentException("A version newer than the turn list's, which is " + format(current)
					+ ": send the 'version' of an earlier answer");
		}
		return number;
	}

	/**
	 * A turn that left the list, and when.
	 *
	 * @param version the version of its eviction
	 * @param turnId the turn
	 */
	private record Eviction(long version, String turnId) {

	}

}
