package io.mantlehooks.ai;

/**
 * What a faulty hook does instead of its job.
 */
enum Fault {

	/** Throws an exception whose text is a secret. */
	CRASH(true),

	/** Throws {@code StackOverflowError} with a secret text. */
	STACK_OVERFLOW(true),

	/** Throws {@code OutOfMemoryError} with a secret text. */
	OUT_OF_MEMORY(true),

	/**
	 * Sleeps until the test releases it, far past its timeout (stops when interrupted).
	 */
	TIMEOUT(true),

	/**
	 * Spins on the CPU ignoring interrupts until the test releases it, before it returns
	 * its stage.
	 */
	SPIN(true),

	/** Returns {@code null} instead of a stage. */
	NULL(true),

	/** Completes its stage with a value of the wrong type. */
	WRONG_TYPE(true),

	/** Returns a stage that never completes. */
	NEVER_COMPLETES(true),

	/** Completes its stage with an {@code Error} with a secret text. */
	STAGE_FAILS(true),

	/** Returns a payload nested 10,000 deep. */
	TOO_DEEP(true),

	/** Raises a control signal its point does not support: discarded, input goes on. */
	UNSUPPORTED_SIGNAL(false),

	/** Returns the payload of another turn (another sender and channel): restored. */
	OTHER_TURN(false),

	/**
	 * Sleeps until the test releases it, while the test interrupts the caller's
	 * {@code .call()} thread.
	 */
	CALLER_INTERRUPTED(false);

	private final boolean failure;

	Fault(boolean failure) {
		this.failure = failure;
	}

	/**
	 * Whether the fault makes the hook fail, so its point's fail policy applies.
	 */
	boolean isFailure() {
		return this.failure;
	}

}
