package io.mantlehooks.ai.model;

import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.mantlehooks.HookPoint;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Wraps {@code ChatModel} beans so that a call made outside a hooked turn is detected
 * (see {@link UnhookedCallDetector}). The proxy keeps the bean's class, so injection by
 * the concrete type still works; a bean of a final class cannot be proxied that way and
 * is left as it is: its calls are checked through Spring AI's model observations when the
 * application has an {@code ObservationRegistry}.
 */
public final class ChatModelBeanPostProcessor implements BeanPostProcessor {

	private static final String CHAT_MODEL = "org.springframework.ai.chat.model.ChatModel";

	private final ObjectProvider<UnhookedCallDetector> detector;

	private final Supplier<Set<HookPoint>> pointsWithHooks;

	private final Class<?> chatModelType;

	private final List<String> unproxied = new CopyOnWriteArrayList<>();

	/**
	 * Create the post-processor.
	 * @param detector the detector, resolved when the first model bean is wrapped
	 * @param pointsWithHooks the points with hooks, as far as known when a model bean is
	 * created: without any, the bean is left as it is
	 */
	public ChatModelBeanPostProcessor(ObjectProvider<UnhookedCallDetector> detector,
			Supplier<Set<HookPoint>> pointsWithHooks) {
		this.detector = detector;
		this.pointsWithHooks = pointsWithHooks;
		this.chatModelType = ClassUtils.resolveClassName(CHAT_MODEL, getClass().getClassLoader());
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!this.chatModelType.isInstance(bean)) {
			return bean;
		}
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (Modifier.isFinal(targetClass.getModifiers()) || targetClass.isSynthetic()
				|| targetClass.getName().contains("$$Lambda")) {
			this.unproxied.add(beanName + " (" + targetClass.getName() + ")");
			return bean;
		}
		UnhookedCallDetector unhookedCalls = this.detector.getIfAvailable();
		if (unhookedCalls == null || unhookedCalls.policy() == UnhookedCallPolicy.IGNORE
				|| this.pointsWithHooks.get().isEmpty()) {
			// nothing to guard: an application without hooks pays nothing
			return bean;
		}
		ProxyFactory proxyFactory = new ProxyFactory(bean);
		proxyFactory.setProxyTargetClass(true);
		proxyFactory.addAdvice(new UnhookedCallInterceptor(unhookedCalls, beanName));
		return proxyFactory.getProxy(targetClass.getClassLoader());
	}

	/**
	 * Return the model beans that could not be proxied, as {@code name (class)}.
	 * @return the unproxied model beans
	 */
	public List<String> getUnproxiedModels() {
		return List.copyOf(this.unproxied);
	}

}
