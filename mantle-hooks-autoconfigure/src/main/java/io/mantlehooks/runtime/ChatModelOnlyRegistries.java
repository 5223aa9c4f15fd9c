package io.mantlehooks.runtime;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;

/**
 * The observation registries in which the starter keeps only Spring AI's chat-model
 * observations (the unhooked-call detector's predicate, installed when nothing else
 * listens). There an engine observation ({@code mantle.turn}, {@code mantle.hook}) would
 * be built only for the predicate to drop it, so the engine does not build it: its
 * context alone is three maps per hook invocation.
 * <p>
 * Read on every turn and hook invocation, written once per application: a copy-on-write
 * array, compared by identity, and weak, so a closed application's registry can go.
 */
public final class ChatModelOnlyRegistries {

	@SuppressWarnings("unchecked")
	private static volatile WeakReference<ObservationRegistry>[] limited = new WeakReference[0];

	/**
	 * How many times a registry was added: what a {@link Check} compares its answer to.
	 */
	private static volatile int additions;

	private ChatModelOnlyRegistries() {
	}

	/**
	 * Note that a registry keeps only chat-model observations from now on.
	 * @param registry the registry
	 */
	@SuppressWarnings("unchecked")
	public static synchronized void add(ObservationRegistry registry) {
		List<WeakReference<ObservationRegistry>> kept = new ArrayList<>();
		for (WeakReference<ObservationRegistry> reference : limited) {
			ObservationRegistry known = reference.get();
			if (known == registry) {
				return;
			}
			if (known != null) {
				kept.add(reference);
			}
		}
		kept.add(new WeakReference<>(registry));
		limited = kept.toArray(new WeakReference[0]);
		additions++;
	}

	/**
	 * Return the check of one registry, for code that asks on every turn or hook
	 * invocation.
	 * @param registry the registry
	 * @return its check
	 */
	public static Check check(ObservationRegistry registry) {
		return new Check(registry);
	}

	/**
	 * Return whether an engine observation made in the registry could reach a handler.
	 * @param registry the registry
	 * @return {@code false} for the no-op registry and for one that keeps only chat-model
	 * observations
	 */
	public static boolean observesEngine(ObservationRegistry registry) {
		return !registry.isNoop() && !isLimited(registry);
	}

	private static boolean isLimited(ObservationRegistry registry) {
		for (WeakReference<ObservationRegistry> reference : limited) {
			if (reference.get() == registry) {
				return true;
			}
		}
		return false;
	}

	/**
	 * {@link #observesEngine} for one registry, asked on every hook invocation: whether
	 * the registry is limited is kept until another registry is added (reading each weak
	 * reference again showed in profiles of many concurrent turns), while whether it has
	 * handlers is asked each time, since handlers may come later.
	 */
	public static final class Check {

		private final ObservationRegistry registry;

		/**
		 * The answer and the count of additions it was found at, in one value so that two
		 * threads refreshing at once cannot leave one's count with the other's answer:
		 * the count shifted left by one, the lowest bit set when the registry is limited;
		 * -1 before the first answer.
		 */
		private volatile long answer = -1;

		private Check(ObservationRegistry registry) {
			this.registry = registry;
		}

		/**
		 * Return whether an engine observation made in the registry could reach a
		 * handler.
		 * @return {@code false} for the no-op registry and for one that keeps only
		 * chat-model observations
		 */
		public boolean observesEngine() {
			if (this.registry.isNoop()) {
				return false;
			}
			int seen = additions;
			long known = this.answer;
			if (known < 0 || (known >>> 1) != seen) {
				known = ((long) seen << 1) | (isLimited(this.registry) ? 1 : 0);
				this.answer = known;
			}
			return (known & 1) == 0;
		}

	}

}
