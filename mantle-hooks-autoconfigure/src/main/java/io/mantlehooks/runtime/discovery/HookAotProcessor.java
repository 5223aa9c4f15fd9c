package io.mantlehooks.runtime.discovery;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Runs the hook validation during the AOT build ({@code spring-boot:process-aot}), so a
 * bad hook fails the build rather than only the running application, and records what the
 * bytecode check found ({@code META-INF/mantle-hooks/bytecode-checks.properties}) for a
 * native image, where no class file can be read at startup. Hook methods themselves are
 * registered for reflection through the hook annotations, which are {@code @Reflective}.
 */
final class HookAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		HookMethodProcessor processor = beanFactory.getBeanProvider(HookMethodProcessor.class).getIfAvailable();
		if (processor == null) {
			return null;
		}
		RecordedChecks recorded = processor.checkAheadOfTime();
		return (generationContext, code) -> {
			generationContext.getGeneratedFiles().addResourceFile(RecordedChecks.LOCATION, recorded.write());
			generationContext.getRuntimeHints().resources().registerPattern(RecordedChecks.LOCATION);
		};
	}

}
