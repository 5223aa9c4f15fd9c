package io.mantlehooks.ai.chat;

import io.mantlehooks.ModelSettings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.util.ClassUtils;

/**
 * Applies the allowlisted overrides of a model-request hook to a call's options. Only
 * non-null fields override; model, provider, API key and tools are never touched.
 */
final class ModelSettingsApplier {

	private static final Log logger = LogFactory.getLog(ModelSettingsApplier.class);

	private static final boolean OPENAI_PRESENT = ClassUtils
		.isPresent("org.springframework.ai.openai.OpenAiChatOptions", ModelSettingsApplier.class.getClassLoader());

	private ModelSettingsApplier() {
	}

	static @Nullable ChatOptions apply(@Nullable ChatOptions options, ModelSettings settings) {
		if (settings.isEmpty()) {
			return options;
		}
		ChatOptions.Builder<?> builder = (options != null) ? options.mutate() : ChatOptions.builder();
		if (settings.temperature() != null) {
			builder.temperature(settings.temperature());
		}
		if (settings.topP() != null) {
			builder.topP(settings.topP());
		}
		if (settings.maxTokens() != null) {
			builder.maxTokens(settings.maxTokens());
		}
		if (settings.presencePenalty() != null) {
			builder.presencePenalty(settings.presencePenalty());
		}
		if (settings.frequencyPenalty() != null) {
			builder.frequencyPenalty(settings.frequencyPenalty());
		}
		if (settings.stop() != null) {
			builder.stopSequences(settings.stop());
		}
		if (settings.seed() != null && !applySeed(builder, settings.seed())) {
			logger.debug("Ignoring the seed of a model-request hook: " + builder.getClass().getName()
					+ " has no seed option");
		}
		return builder.build();
	}

	private static boolean applySeed(ChatOptions.Builder<?> builder, Long seed) {
		if (OPENAI_PRESENT && OpenAiSeed.isOpenAi(builder)) {
			if (seed < Integer.MIN_VALUE || seed > Integer.MAX_VALUE) {
				logger.debug("Ignoring the seed " + seed + " of a model-request hook: OpenAI takes 32-bit seeds");
				return true;
			}
			OpenAiSeed.apply(builder, seed.intValue());
			return true;
		}
		return false;
	}

	/**
	 * Keeps the OpenAI types out of the outer class so the OpenAI module stays optional.
	 */
	private static final class OpenAiSeed {

		static boolean isOpenAi(ChatOptions.Builder<?> builder) {
			return builder instanceof OpenAiChatOptions.Builder;
		}

		static void apply(ChatOptions.Builder<?> builder, int seed) {
			((OpenAiChatOptions.Builder) builder).seed(seed);
		}

	}

}
