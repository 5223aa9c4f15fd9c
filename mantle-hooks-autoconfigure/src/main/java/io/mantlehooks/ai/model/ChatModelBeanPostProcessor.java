package io.mantlehooks.ai.model;

import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.mantlehooks.HookPoint;
import io.mantlehooks.UnhookedCallPolicy;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Wraps {@code ChatModel} beans so that a call made outside a hooked turn is detected
 * (see {@link UnhookedCallDetector}). The proxy keeps the bean's class, so injection by
 * the concrete type still works; a bean of a final class cannot be proxied that way and
 * is left as it is: its calls are checked through Spring AI's model observations when the
 * application has an {@code ObservationRegistry}
 * ({@link UnhookedCallObservationHandler}), and {@link UnhookedCallCoverageCheck} names
 * it at startup when it has none.
 */
public final class ChatModelBeanPostProcessor implements SmartInstantiationAwareBeanPostProcessor {

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
		ProxyFactory proxyFactory = proxyFactory(targetClass, new UnhookedCallInterceptor(unhookedCalls, beanName));
		proxyFactory.setTarget(bean);
		return proxyFactory.getProxy(targetClass.getClassLoader());
	}

	/**
	 * Return the class of the proxy this processor makes of a chat model bean when the
	 * application has hooks: during the AOT build this generates the proxy class ahead of
	 * time, so a native image has it.
	 */
	@Override
	public Class<?> determineBeanType(Class<?> beanClass, String beanName) {
		if (!this.chatModelType.isAssignableFrom(beanClass) || beanClass.isInterface()
				|| Modifier.isFinal(beanClass.getModifiers()) || beanClass.isSynthetic()
				|| this.pointsWithHooks.get().isEmpty()) {
			return beanClass;
		}
		UnhookedCallDetector unhookedCalls = this.detector.getIfAvailable();
		if (unhookedCalls == null || unhookedCalls.policy() == UnhookedCallPolicy.IGNORE) {
			return beanClass;
		}
		ProxyFactory proxyFactory = proxyFactory(beanClass, new UnhookedCallInterceptor(unhookedCalls, beanName));
		proxyFactory.setTargetClass(beanClass);
		return proxyFactory.getProxyClass(beanClass.getClassLoader());
	}

	/**
	 * The proxy's configuration, the same for the class made ahead of time and for the
	 * proxy of the bean, so that the bean's proxy is of the class made ahead of time.
	 */
	private static ProxyFactory proxyFactory(Class<?> targetClass, UnhookedCallInterceptor interceptor) {
		ProxyFactory proxyFactory = new ProxyFactory();
		proxyFactory.setInterfaces(ClassUtils.getAllInterfacesForClass(targetClass, targetClass.getClassLoader()));
		proxyFactory.setProxyTargetClass(true);
		proxyFactory.addAdvice(interceptor);
		return proxyFactory;
	}

	/**
	 * Return the model beans that could not be proxied, as {@code name (class)}.
	 * @return the unproxied model beans
	 */
	public List<String> getUnproxiedModels() {
		return List.copyOf(this.unproxied);
	}

}
