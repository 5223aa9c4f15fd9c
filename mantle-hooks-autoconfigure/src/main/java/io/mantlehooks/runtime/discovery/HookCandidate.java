package io.mantlehooks.runtime.discovery;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Set;

import io.mantlehooks.HookPoint;
import io.mantlehooks.annotation.StreamMode;
import io.mantlehooks.runtime.HookLane;

import org.springframework.util.ClassUtils;

/**
 * A bean method carrying a hook annotation, before validation.
 *
 * @param beanName the bean's name
 * @param method the annotated method, as declared on the bean's target class
 * @param annotationType the hook annotation found on it (directly or as a
 * meta-annotation)
 * @param point the point the annotation names
 * @param lane the lane the annotation names
 * @param annotationTimeoutMs the annotation's {@code timeoutMs}
 * @param streamMode what an outgoing-text modify hook sees of a streamed reply
 * ({@code WHOLE} for every other hook)
 * @param agents the agents named by its {@code @ForAgent}, empty for every agent
 */
record HookCandidate(String beanName, Method method, Class<? extends Annotation> annotationType, HookPoint point,
		HookLane lane, long annotationTimeoutMs, StreamMode streamMode, Set<String> agents) {

	String hookName() {
		return this.beanName + "." + this.method.getName();
	}

	/**
	 * Describe the hook as a person finds it in the code: annotation, bean and method.
	 */
	String describe() {
		return "@" + this.annotationType.getSimpleName() + " method '" + hookName() + "' ("
				+ ClassUtils.getQualifiedMethodName(this.method) + ")";
	}

}
