package io.mantlehooks.runtime.discovery;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.sample.AuditHooks;
import io.mantlehooks.sample.CopywriterHooks;
import io.mantlehooks.sample.GroundingHooks;
import io.mantlehooks.sample.GuardHooks;
import io.mantlehooks.sample.KnowledgeGuards;
import io.mantlehooks.sample.ToolGuards;
import org.junit.jupiter.api.Test;

import org.springframework.core.annotation.MergedAnnotations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample is compiled with mantle-hooks-processor: its hook classes start without
 * their class files being read, and the index says what reading them would.
 */
class SampleSourceIndexTests {

	private static final List<Class<?>> HOOK_CLASSES = List.of(AuditHooks.class, CopywriterHooks.class,
			GroundingHooks.class, GuardHooks.class, KnowledgeGuards.class, ToolGuards.class);

	@Test
	void theIndexCoversGuardHooks() throws Exception {
		SourceChecks index = SourceChecks.load(getClass().getClassLoader());
		Method veto = GuardHooks.class.getMethod("vetoSalesPitches", IncomingMessagePayload.class);
		RecordedChecks.Checked checked = index.find(veto);
		assertThat(checked).isNotNull();
		assertThat(checked.signals()).containsExactly(HookRejection.class);
		assertThat(checked.rejectionNames()).containsExactly("utter_spam_rejected");
	}

	@Test
	void theIndexAnswersForEverySampleHookAsReadingTheClassFileWould() {
		SourceChecks index = SourceChecks.load(getClass().getClassLoader());
		SignalUsageInspector indexed = new SignalUsageInspector(new RecordedChecks(), index);
		SignalUsageInspector read = new SignalUsageInspector(new RecordedChecks(), SourceChecks.none());
		List<Method> hooks = new ArrayList<>();
		for (Class<?> type : HOOK_CLASSES) {
			for (Method method : type.getDeclaredMethods()) {
				if (isHook(method)) {
					hooks.add(method);
					assertThat(index.find(method)).as("index entry of %s", method).isNotNull();
					assertThat(indexed.constructedSignals(method)).as("signals of %s", method)
						.containsExactlyInAnyOrderElementsOf(read.constructedSignals(method));
					assertThat(indexed.rejectionResponseNames(method)).as("rejection names of %s", method)
						.containsExactlyInAnyOrderElementsOf(read.rejectionResponseNames(method));
				}
			}
		}
		assertThat(hooks).hasSizeGreaterThan(HOOK_CLASSES.size());
		assertThat(index.coveredClasses()).isEqualTo(HOOK_CLASSES.size());
	}

	private static boolean isHook(Method method) {
		Set<Class<? extends Annotation>> hookAnnotations = new HashSet<>();
		for (HookPoint point : HookPoint.values()) {
			hookAnnotations.add(point.observeAnnotation());
			if (point.modifyAnnotation() != null) {
				hookAnnotations.add(point.modifyAnnotation());
			}
		}
		return MergedAnnotations.from(method)
			.stream()
			.anyMatch((annotation) -> hookAnnotations.contains(annotation.getType()));
	}

}
