package io.mantlehooks.ai.model;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.mantlehooks.UnhookedCallPolicy;
import io.mantlehooks.UnhookedModelCallException;
import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.runtime.HookRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Decides what to do with a model call made outside a hooked turn: report it once per
 * calling class, refuse it, or ignore it ({@link UnhookedCallPolicy}). Calls inside a
 * turn, nested {@code ChatClient} calls included, are never reported; neither is any call
 * while the application has no hooks.
 */
public final class UnhookedCallDetector {

	private static final Log logger = LogFactory.getLog(UnhookedCallDetector.class);

	private static final ThreadLocal<Boolean> CHECKED = new ThreadLocal<>();

	private static final Set<String> FRAMEWORK_PACKAGES = Set.of("java.", "javax.", "jdk.", "sun.", "com.sun.",
			"org.springframework.", "reactor.", "io.micrometer.", "io.mantlehooks.ai.chat.", "io.mantlehooks.ai.model.",
			"io.mantlehooks.ai.turn.", "io.mantlehooks.runtime.", "kotlin.", "kotlinx.", "okhttp3.", "com.openai.",
			"org.junit.");

	private final HookRegistry registry;

	private final UnhookedCallPolicy policy;

	private final Set<String> reported = ConcurrentHashMap.newKeySet();

	/**
	 * Create a detector.
	 * @param registry the hooks; nothing is reported while it has none
	 * @param policy what to do with an unhooked call
	 */
	public UnhookedCallDetector(HookRegistry registry, UnhookedCallPolicy policy) {
		this.registry = registry;
		this.policy = policy;
	}

	UnhookedCallPolicy policy() {
		return this.policy;
	}

	/**
	 * Check a model call that is about to be made.
	 * @param model the model bean's name or provider
	 * @param inTurn whether the call belongs to a hooked turn
	 * @throws UnhookedModelCallException with {@link UnhookedCallPolicy#FAIL} outside a
	 * turn
	 */
	void check(String model, boolean inTurn) {
		if (inTurn || this.policy == UnhookedCallPolicy.IGNORE || !this.registry.isInstalled()
				|| this.registry.pointsWithHooks().isEmpty()) {
			return;
		}
		String caller = callingClass();
		if (this.policy == UnhookedCallPolicy.FAIL) {
			throw new UnhookedModelCallException(message(model, caller,
					"The call was refused before the provider saw it (mantle.hooks.unhooked-calls=fail). To let "
							+ "calls without hooks through, set mantle.hooks.unhooked-calls=warn (reported) or ignore."));
		}
		if (this.reported.add((caller != null) ? caller : model)) {
			logger.warn(message(model, caller, "Set mantle.hooks.unhooked-calls=fail to refuse such calls, or ignore "
					+ "to allow them silently."));
		}
	}

	/**
	 * What was called from where, the fix, and what the policy can do about it: with
	 * {@code fail} the reader has already set it, so the message does not advise it.
	 */
	private static String message(String model, @Nullable String caller, String policyAdvice) {
		return "ChatModel '" + model + "' was called outside a hooked turn"
				+ ((caller != null) ? " from " + caller : "")
				+ ": no mantle hook (guardrail) ran for this call. Build the ChatClient from the auto-configured "
				+ "ChatClient.Builder, or apply the MantleChatClientCustomizer bean to your own builder "
				+ "(customizer.customize(builder)). " + policyAdvice;
	}

	/**
	 * Return whether a turn is current on this thread.
	 */
	static boolean inTurnOnThread() {
		return CurrentTurn.get() != null;
	}

	/**
	 * Run work during which the call counts as checked, so another check of the same call
	 * (the model's own observation) stays silent.
	 */
	static <T> T checked(Supplier<T> work) {
		Boolean previous = CHECKED.get();
		CHECKED.set(Boolean.TRUE);
		try {
			return work.get();
		}
		finally {
			if (previous == null) {
				CHECKED.remove();
			}
		}
	}

	static boolean alreadyChecked() {
		return Boolean.TRUE.equals(CHECKED.get());
	}

	private static @Nullable String callingClass() {
		Optional<String> caller = StackWalker.getInstance()
			.walk((frames) -> frames.map(StackWalker.StackFrame::getClassName)
				.filter((name) -> !isFramework(name))
				.findFirst());
		return caller.orElse(null);
	}

	private static boolean isFramework(String className) {
		if (className.contains("$$SpringCGLIB$$") || className.startsWith("jdk.proxy")) {
			return true;
		}
		for (String prefix : FRAMEWORK_PACKAGES) {
			if (className.startsWith(prefix)) {
				return true;
			}
		}
		return false;
	}

}
