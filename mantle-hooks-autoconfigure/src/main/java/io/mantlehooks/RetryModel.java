package io.mantlehooks;

import org.springframework.util.Assert;

/**
 * Discards the current model response (from {@code @ModifyModelResponse}) or the whole
 * tool-call batch (from {@code @ModifyToolCall}) and calls the model again. The feedback
 * is added as a system note to the next model request of the same turn only: it is never
 * stored in chat memory and never sent to the user. Each retry counts toward
 * {@code mantle.hooks.max-iterations}.
 */
public final class RetryModel extends HookSignal {

	private static final long serialVersionUID = 1L;

	/** What the model is told before it answers again. */
	private final String feedback;

	/**
	 * Create a retry signal.
	 * @param feedback a short note that steers the next model call
	 */
	public RetryModel(String feedback) {
		super("Hook asked to retry the model");
		Assert.hasText(feedback, "'feedback' must not be empty");
		this.feedback = feedback;
	}

	/**
	 * Return the note for the next model request.
	 * @return the feedback
	 */
	public String feedback() {
		return this.feedback;
	}

}
