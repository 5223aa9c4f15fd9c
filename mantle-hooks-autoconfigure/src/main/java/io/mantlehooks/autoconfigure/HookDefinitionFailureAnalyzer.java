package io.mantlehooks.autoconfigure;

import java.util.stream.Collectors;

import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookProblem;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link HookDefinitionException} into Spring Boot's startup report: each problem
 * in the description, each fix in the action.
 */
class HookDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<HookDefinitionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, HookDefinitionException cause) {
		String description = cause.getProblems()
			.stream()
			.map(HookProblem::description)
			.collect(Collectors.joining("\n\n",
					"mantle-hooks found problems with the application's hooks or their configuration:\n\n", ""));
		String action = cause.getProblems()
			.stream()
			.map(HookProblem::action)
			.distinct()
			.collect(Collectors.joining("\n\n"));
		return new FailureAnalysis(description, action, cause);
	}

}
