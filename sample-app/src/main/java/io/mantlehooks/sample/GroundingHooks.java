package io.mantlehooks.sample;

import java.util.List;
import java.util.Locale;

import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.annotation.ModifyModelResponse;

import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * Grounding, on with the {@code grounding} profile: a guessed answer goes back to the
 * model with a note. A model-response hook must see the whole completion before anything
 * of it is sent (it may retry it), so with it on the chat page receives each reply in one
 * piece instead of sentence by sentence; the sample leaves it off by default to show
 * streaming guardrails.
 */
@Component
@Profile("grounding")
public class GroundingHooks {

	private static final List<String> GUESSES = List.of("i guess", "probably");

	/**
	 * Grounding: a guessed answer goes back to the model with a note.
	 * @param response the model's response
	 * @return the response, when it is no guess
	 */
	@ModifyModelResponse
	public ModelResponsePayload rejectGuesses(ModelResponsePayload response) {
		String text = (response.text() != null) ? response.text().toLowerCase(Locale.ROOT) : "";
		if (GUESSES.stream().anyMatch(text::contains)) {
			throw new RetryModel("That answer was a guess. Answer only from the shop's documents.");
		}
		return response;
	}

}
