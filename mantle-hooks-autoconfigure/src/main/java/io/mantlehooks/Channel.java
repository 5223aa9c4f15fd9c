package io.mantlehooks;

import java.util.Map;

/**
 * The channel a turn came in on: its name (for example {@code rest}, {@code web},
 * {@code voice}) and the front end's metadata. Engine-owned identity: a modify hook
 * cannot change it; the runner restores it from the input payload.
 *
 * @param name the channel name, {@code ""} when unknown
 * @param metadata the channel's metadata, deeply unmodifiable, empty when absent
 */
public record Channel(String name, Map<String, Object> metadata) {

	private static final Channel NONE = new Channel("", Map.of());

	/**
	 * Create a channel: a {@code null} name becomes empty and the metadata is copied.
	 * @param name the channel name, {@code ""} when unknown
	 * @param metadata the channel's metadata, deeply unmodifiable, empty when absent
	 */
	public Channel {
		name = (name != null) ? name : "";
		metadata = JsonValues.copyMap(metadata);
	}

	/**
	 * Return a channel with the given name and no metadata.
	 * @param name the channel name
	 * @return the channel
	 */
	public static Channel of(String name) {
		return new Channel(name, Map.of());
	}

	/**
	 * Return the channel used when the app supplied none: empty name, no metadata.
	 * @return the unknown channel
	 */
	public static Channel none() {
		return NONE;
	}

}
