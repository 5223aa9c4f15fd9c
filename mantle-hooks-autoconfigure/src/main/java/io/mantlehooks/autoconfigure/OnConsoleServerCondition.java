package io.mantlehooks.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches when the turn console page belongs on the application's own server: the page
 * calls the Actuator endpoint on its own origin, so when Actuator has a port of its own
 * the page is served there instead (see
 * {@link MantleHooksConsoleManagementContextConfiguration}).
 */
final class OnConsoleServerCondition extends SpringBootCondition {

	private static final boolean ACTUATOR_PRESENT = ClassUtils.isPresent(
			"org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType",
			OnConsoleServerCondition.class.getClassLoader());

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		if (ACTUATOR_PRESENT && Actuator.hasOwnPort(context)) {
			return ConditionOutcome.noMatch("the management server has its own port: the console page is served there");
		}
		return ConditionOutcome.match("the console page is served with the application");
	}

	/** Kept apart so that only this class needs Actuator on the class path. */
	private static final class Actuator {

		static boolean hasOwnPort(ConditionContext context) {
			return ManagementPortType.get(context.getEnvironment()) == ManagementPortType.DIFFERENT;
		}

	}

}
