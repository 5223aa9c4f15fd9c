package io.mantlehooks.runtime;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.context.MessageSource;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Resolves the named replies that hooks choose ({@code HookRejection(reason, name)}) and
 * that the engine sends on hook failures. A name is looked up in
 * {@code mantle.hooks.responses}, then in the application's {@link MessageSource} (locale
 * from {@link LocaleContextHolder}); a name that resolves to nothing falls back to the
 * point's packaged response. A raw {@code utter_*} name never reaches the user.
 */
public final class HookResponses {

	/** Reply when an incoming message is rejected without a usable response name. */
	public static final String INCOMING_MESSAGE_REJECTED = "utter_incoming_message_rejected";

	/** Reply when outgoing text is rejected without a usable response name. */
	public static final String OUTGOING_TEXT_REJECTED = "utter_outgoing_text_rejected";

	/** Reply when the model-request hook fails and the model is not called. */
	public static final String MODEL_REQUEST_HOOK_ERROR = "utter_model_request_hook_error";

	/** Reply when the tool-call hook fails and the batch is not dispatched. */
	public static final String TOOL_CALL_HOOK_ERROR = "utter_tool_call_hook_error";

	/** Reply when a turn reaches {@code mantle.hooks.max-iterations}. */
	public static final String MAX_ITERATIONS_REACHED = "utter_max_iterations_reached";

	/**
	 * Reply when a tool-call batch waits for a person's approval; {@code {calls}} stands
	 * for every call that runs if approved (one per line: tool name and JSON arguments),
	 * {@code {tool}} and {@code {arguments}} for the first call that needs approval (all
	 * of a one-call batch).
	 */
	public static final String TOOL_APPROVAL_REQUIRED = "utter_tool_approval_required";

	/**
	 * Reply when an approval or denial names no pending batch (unknown, expired, done).
	 */
	public static final String APPROVAL_NOT_FOUND = "utter_approval_not_found";

	/**
	 * Reply when the turn may not approve or deny the batch it names (another sender
	 * paused it, or the {@code ApprovalAuthorizer} refused); the batch keeps waiting.
	 */
	public static final String APPROVAL_NOT_ALLOWED = "utter_approval_not_allowed";

	/**
	 * What the model is told, as each call's result, when a person declined a paused
	 * batch (the user's reason, if any, goes with it).
	 */
	public static final String TOOL_CALL_DECLINED = "utter_tool_call_declined";

	private static final Map<String, String> PACKAGED = Map.of(TOOL_CALL_DECLINED, "The user declined this action.",
			APPROVAL_NOT_ALLOWED, "Sorry, you can't approve or decline that request.", INCOMING_MESSAGE_REJECTED,
			"Sorry, I can't help with that request.", OUTGOING_TEXT_REJECTED, "Sorry, I can't share that response.",
			MODEL_REQUEST_HOOK_ERROR, "Sorry, something went wrong on our side. Please try again.",
			TOOL_CALL_HOOK_ERROR, "Sorry, I couldn't complete that action. Please try again.", MAX_ITERATIONS_REACHED,
			"Sorry, I couldn't finish that request. Please try rephrasing it.", TOOL_APPROVAL_REQUIRED,
			"I need your approval before I run:\n{calls}", APPROVAL_NOT_FOUND,
			"That request is no longer waiting for approval, so nothing was done.");

	/** The default message of a lookup, so a miss is told apart from any text. */
	private static final String MISSING = "\u0000mantle-hooks:no-such-response";

	private final Map<String, String> configured;

	private final @Nullable MessageSource messageSource;

	/**
	 * Create a resolver.
	 * @param configured the {@code mantle.hooks.responses} entries
	 * @param messageSource the application's message source, if any
	 */
	public HookResponses(Map<String, String> configured, @Nullable MessageSource messageSource) {
		this.configured = new LinkedHashMap<>();
		configured.forEach((name, text) -> this.configured.put(ConfigurationKeys.normalize(name), text));
		this.messageSource = messageSource;
	}

	/**
	 * Return the text of a named response, or of the fallback when the name is absent or
	 * resolves to nothing.
	 * @param name the name the hook chose, may be {@code null}
	 * @param fallback one of the packaged names of this class
	 * @return the text to send, never a raw response name
	 */
	public String resolve(@Nullable String name, String fallback) {
		if (StringUtils.hasText(name)) {
			String text = lookup(name);
			if (text != null) {
				return text;
			}
		}
		String text = lookup(fallback);
		return (text != null) ? text : PACKAGED.getOrDefault(fallback, PACKAGED.get(MODEL_REQUEST_HOOK_ERROR));
	}

	/**
	 * Return the packaged text of a name, ignoring configuration and message source.
	 * @param name one of the packaged names of this class
	 * @return the packaged text
	 */
	public static String packaged(String name) {
		String text = PACKAGED.get(name);
		Assert.notNull(text, () -> "No packaged response '" + name + "'");
		return text;
	}

	/**
	 * Return whether a name resolves to a reply for the given locale: configured, found
	 * in the message source, or packaged.
	 * @param name the response name
	 * @param locale the locale to look it up for
	 * @return whether a hook that names it gets that reply rather than a fallback
	 */
	public boolean isKnown(String name, Locale locale) {
		return lookup(name, locale) != null || PACKAGED.containsKey(name);
	}

	private @Nullable String lookup(String name) {
		return lookup(name, LocaleContextHolder.getLocale());
	}

	private @Nullable String lookup(String name, Locale locale) {
		String text = this.configured.get(ConfigurationKeys.normalize(name));
		if (!usable(text) && this.messageSource != null) {
			// only a real hit counts: a message source that uses codes as default
			// messages would otherwise echo a free-form "name" back as the reply
			String found = this.messageSource.getMessage(name, null, MISSING, locale);
			text = MISSING.equals(found) ? null : found;
		}
		return usable(text) ? text : null;
	}

	/**
	 * A raw {@code utter_*} name must not reach a user, even when it is what a lookup
	 * found.
	 */
	private static boolean usable(@Nullable String text) {
		return StringUtils.hasText(text) && !text.trim().startsWith("utter_");
	}

}
