package io.mantlehooks;

/**
 * What a modify hook decided, as exactly one of: the payload to continue with
 * ({@link Proceed}), a control signal allowed at the point ({@link Signalled}), or a
 * failure to which the caller applies the point's fail policy ({@link Failed}).
 *
 * @param <P> the payload type
 */
public sealed interface ModifyResult<P extends HookPayload> {

	/**
	 * Continue with a payload: the hook's rewrite with identity restored, or the input
	 * when the point has no modify hook or the hook raised a signal the point ignores.
	 *
	 * @param <P> the payload type
	 * @param payload the payload to continue with
	 */
	record Proceed<P extends HookPayload>(P payload) implements ModifyResult<P> {
	}

	/**
	 * The hook raised a control signal the point supports.
	 *
	 * @param <P> the payload type
	 * @param signal the signal
	 */
	record Signalled<P extends HookPayload>(HookSignal signal) implements ModifyResult<P> {
	}

	/**
	 * The hook crashed, timed out or returned something invalid.
	 *
	 * @param <P> the payload type
	 * @param failure what went wrong
	 */
	record Failed<P extends HookPayload>(HookFailure failure) implements ModifyResult<P> {

		/**
		 * Return the policy the caller applies.
		 * @return the point's fail policy
		 */
		public HookPoint.FailPolicy policy() {
			return this.failure.point().failPolicy();
		}

	}

}
