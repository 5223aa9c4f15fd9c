package io.mantlehooks.runtime;

/**
 * The two ways a hook takes part in a turn.
 */
public enum HookLane {

	/** {@code @On...}: runs concurrently, never awaited, cannot affect the turn. */
	OBSERVE,

	/**
	 * {@code @Modify...}: awaited with its timeout; may return a new payload or signal.
	 */
	MODIFY

}
