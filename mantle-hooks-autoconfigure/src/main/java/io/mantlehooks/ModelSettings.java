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

	/**
	 * Create settings; a {@code null} component overrides nothing, the stop list is
	 * copied.
	 * @param temperature sampling temperature
	 * @param topP nucleus sampling mass
	 * @param maxTokens maximum tokens to generate
	 * @param presencePenalty presence penalty
	 * @param frequencyPenalty frequency penalty
	 * @param stop stop sequences, unmodifiable; {@code null} for no override
	 * @param seed sampling seed, where the provider supports one
	 */
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

	/**
	 * Return these settings with the sampling temperature replaced.
	 * @param temperature the sampling temperature, or {@code null} to override nothing
	 * @return the new settings
	 */
	public ModelSettings withTemperature(@Nullable Double temperature) {
		return new ModelSettings(temperature, this.topP, this.maxTokens, this.presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	/**
	 * Return these settings with the nucleus sampling probability replaced.
	 * @param topP the nucleus sampling probability, or {@code null} to override nothing
	 * @return the new settings
	 */
	public ModelSettings withTopP(@Nullable Double topP) {
		return new ModelSettings(this.temperature, topP, this.maxTokens, this.presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	/**
	 * Return these settings with the most tokens the model may generate replaced.
	 * @param maxTokens the most tokens the model may generate, or {@code null} to
	 * override nothing
	 * @return the new settings
	 */
	public ModelSettings withMaxTokens(@Nullable Integer maxTokens) {
		return new ModelSettings(this.temperature, this.topP, maxTokens, this.presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	/**
	 * Return these settings with the presence penalty replaced.
	 * @param presencePenalty the presence penalty, or {@code null} to override nothing
	 * @return the new settings
	 */
	public ModelSettings withPresencePenalty(@Nullable Double presencePenalty) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, presencePenalty, this.frequencyPenalty,
				this.stop, this.seed);
	}

	/**
	 * Return these settings with the frequency penalty replaced.
	 * @param frequencyPenalty the frequency penalty, or {@code null} to override nothing
	 * @return the new settings
	 */
	public ModelSettings withFrequencyPenalty(@Nullable Double frequencyPenalty) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, this.presencePenalty, frequencyPenalty,
				this.stop, this.seed);
	}

	/**
	 * Return these settings with the stop sequences replaced.
	 * @param stop the stop sequences, or {@code null} to override nothing
	 * @return the new settings
	 */
	public ModelSettings withStop(@Nullable List<String> stop) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, this.presencePenalty,
				this.frequencyPenalty, stop, this.seed);
	}

	/**
	 * Return these settings with the sampling seed replaced.
	 * @param seed the sampling seed, or {@code null} to override nothing
	 * @return the new settings
	 */
	public ModelSettings withSeed(@Nullable Long seed) {
		return new ModelSettings(this.temperature, this.topP, this.maxTokens, this.presencePenalty,
				this.frequencyPenalty, this.stop, seed);
	}

}
