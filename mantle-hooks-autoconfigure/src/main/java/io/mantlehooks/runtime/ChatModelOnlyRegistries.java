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
	}

	/**
	 * Return whether an engine observation made in the registry could reach a handler.
	 * @param registry the registry
	 * @return {@code false} for the no-op registry and for one that keeps only chat-model
	 * observations
	 */
	public static boolean observesEngine(ObservationRegistry registry) {
		if (registry.isNoop()) {
			return false;
		}
		for (WeakReference<ObservationRegistry> reference : limited) {
			if (reference.get() == registry) {
				return false;
			}
		}
		return true;
	}

}
