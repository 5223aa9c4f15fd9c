package io.mantlehooks;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The rule for agent names, in one place for the client side
 * ({@link io.mantlehooks.MantleHooks#agent(String)}), the turn's start and the hooks'
 * {@link io.mantlehooks.annotation.ForAgent}: a name is a tag on metrics, so it is short
 * and plain.
 */
public final class AgentNames {

	/** The longest agent name, in characters. */
	public static final int MAX_LENGTH = 64;

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private AgentNames() {
	}

	/**
	 * Return what is wrong with an agent name.
	 * @param name the name
	 * @return the problem, or {@code null} when the name is valid
	 */
	public static @Nullable String problem(@Nullable String name) {
		if (name == null || name.isBlank()) {
			return "an agent name must not be empty or blank";
		}
		if (name.length() > MAX_LENGTH) {
			return "agent name '" + name.substring(0, 20) + "…' is longer than " + MAX_LENGTH + " characters";
		}
		if (!NAME.matcher(name).matches()) {
			return "agent name '" + name + "' may only hold letters, digits, '.', '_' and '-', starting with a letter "
					+ "or digit";
		}
		return null;
	}

	/**
	 * Return the name, checked.
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException when the name is not valid
	 */
	public static String check(@Nullable String name) {
		String problem = problem(name);
		if (problem != null) {
			throw new IllegalArgumentException(Character.toUpperCase(problem.charAt(0)) + problem.substring(1));
		}
		return name;
	}

}
