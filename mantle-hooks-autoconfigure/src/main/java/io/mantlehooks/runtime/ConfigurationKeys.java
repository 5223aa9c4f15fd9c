package io.mantlehooks.runtime;

import java.util.Locale;

/**
 * Compares user-written map keys of the configuration.
 */
public final class ConfigurationKeys {

	private ConfigurationKeys() {
	}

	/**
	 * Spring Boot may drop characters other than letters, digits, {@code -} and {@code .}
	 * from unbracketed map keys ({@code utter_spam} can bind as {@code utterspam}), and
	 * relaxed binding may change case, so keys are compared in that reduced,
	 * case-insensitive form, without dashes.
	 * @param key a key as written
	 * @return the key to compare
	 */
	public static String normalize(String key) {
		StringBuilder normalized = new StringBuilder(key.length());
		for (char c : key.toLowerCase(Locale.ROOT).toCharArray()) {
			if (Character.isLetterOrDigit(c) || c == '.') {
				normalized.append(c);
			}
		}
		return normalized.toString();
	}

}
