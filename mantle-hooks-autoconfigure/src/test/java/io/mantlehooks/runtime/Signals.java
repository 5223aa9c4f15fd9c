package io.mantlehooks.runtime;

import io.mantlehooks.HookRejection;
import io.mantlehooks.RetryModel;

/**
 * Builds signals outside a hook's own bytecode, so a test hook can raise a signal its
 * point does not support without failing startup: the runtime backstop is then what
 * handles it.
 */
public final class Signals {

	private Signals() {
	}

	public static RetryModel retry(String feedback) {
		return new RetryModel(feedback);
	}

	public static HookRejection rejection(String reason) {
		return new HookRejection(reason);
	}

}
