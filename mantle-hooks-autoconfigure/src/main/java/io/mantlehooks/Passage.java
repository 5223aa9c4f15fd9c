package io.mantlehooks;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One retrieved chunk of knowledge, as seen by knowledge-results hooks.
 *
 * @param text the chunk's text
 * @param scope the scope the chunk belongs to (document metadata key {@code scope}),
 * {@code ""} when absent
 * @param source where the chunk came from (document metadata key {@code source}),
 * {@code ""} when absent
 * @param score the similarity score, {@code null} when the store gave none
 * @param metadata the document's other metadata, deeply unmodifiable
 */
public record Passage(String text, String scope, String source, @Nullable Double score, Map<String, Object> metadata) {

	/**
	 * Create a passage: a {@code null} string becomes empty and the metadata is copied.
	 * @param text the chunk's text
	 * @param scope the scope the chunk belongs to (document metadata key {@code scope}),
	 * {@code ""} when absent
	 * @param source where the chunk came from (document metadata key {@code source}),
	 * {@code ""} when absent
	 * @param score the similarity score, {@code null} when the store gave none
	 * @param metadata the document's other metadata, deeply unmodifiable
	 */
	public Passage {
		text = (text != null) ? text : "";
		scope = (scope != null) ? scope : "";
		source = (source != null) ? source : "";
		metadata = JsonValues.copyMap(metadata);
	}

}
