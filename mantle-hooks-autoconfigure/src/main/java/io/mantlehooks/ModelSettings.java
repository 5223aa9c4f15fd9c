package io.mantlehooks;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The per-call model options a model-request hook may override. Every field is
 * {@code null} for "no override": the engine does not seed provider defaults. Model name,
 * provider, API key and offered tools are deliberately absent.
 *
 * @param temperature sampling temperature
 * @param topP nucleus sampling mass
 * @param maxTokens maximum tokens to generate
 * @param presencePenalty presence penalty
 * @param frequencyPenalty frequency penalty
 * @param stop stop sequences, unmodifiable; {@code null} for no override
 * @param seed sampling seed, where the provider supports one
 */
public record ModelSettings(@Nullable Double temperature, @Nullable Double topP, @Nullable Integer maxTokens,
		@Nullable Double presencePenalty, @Nullable Double frequencyPenalty, @Nullable List<String> stop,
		@Nullable Long seed) {

	private static final ModelSettings EMPTY = new ModelSettings(null, null, null, null, null, null, null);

	public ModelSettings {
		stop = (stop != null) ? List.copyOf(stop) : null;
	}

	/**
	 * Return settings with no override at all.
	 * @return the empty settings
	 */
	public static ModelSettings empty() {
		return EMPTY;
	}

	/**
	 * Return whether no field overrides anything.
	 * @return {@code true} when every field is {@code null}
	 */
	public boolean isEmpty() {
		return equals(EMPTY);
	}

	public ModelSettings withTemperature(@Nullable Double temperature) {
		return new ModelSettings(temperature, this.topP, this.maxTokens, this.presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	public ModelSettings withTopP(@Nullable Double topP) {
		return new ModelSettings(this.temperature, topP, this.maxTokens, this.presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	public ModelSettings withMaxTokens(@Nullable Integer maxTokens) {
		return new ModelSettings(this.temperature, this.topP, maxTokens, this.presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	public ModelSettings withPresencePenalty(@Nullable Double presencePenalty) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	public ModelSettings withFrequencyPenalty(@Nullable Double frequencyPenalty) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, this.presencePenalty, frequencyPenalty,
				this.stop, this.seed);
	}

	public ModelSettings withStop(@Nullable List<String> stop) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, this.presencePenalty,
				this.frequencyPenalty, stop, this.seed);
	}

	public ModelSettings withSeed(@Nullable Long seed) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, this.presencePenalty,
				this.frequencyPenalty, this.stop, seed);
	}

}
