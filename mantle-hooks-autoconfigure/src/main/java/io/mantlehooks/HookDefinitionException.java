package io.mantlehooks;

import java.util.List;
import java.util.stream.Collectors;

import org.springframework.util.Assert;

/**
 * Thrown at startup when hook methods or their configuration are invalid. Lists every
 * problem found, not just the first; Spring Boot's failure analysis turns it into a
 * "Description / Action" report.
 */
public class HookDefinitionException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient List<HookProblem> problems;

	/**
	 * Create an exception for the given problems.
	 * @param problems what is wrong; must not be empty
	 */
	public HookDefinitionException(List<HookProblem> problems) {
		super(message(problems));
		this.problems = List.copyOf(problems);
	}

	/**
	 * Return what is wrong.
	 * @return the problems, never empty
	 */
	public List<HookProblem> getProblems() {
		return this.problems;
	}

	private static String message(List<HookProblem> problems) {
		Assert.notEmpty(problems, "'problems' must not be empty");
		if (problems.size() == 1) {
			return "Invalid mantle-hooks definition: " + problems.get(0).description();
		}
		return problems.stream()
			.map((problem) -> " - " + problem.description())
			.collect(Collectors.joining("\n", "Invalid mantle-hooks definitions:\n", ""));
	}

}
