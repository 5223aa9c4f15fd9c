package io.mantlehooks.ai.knowledge;

import java.lang.reflect.Modifier;
import java.util.stream.Stream;

import io.mantlehooks.runtime.execution.HookRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Wraps {@code VectorStore} and {@code DocumentRetriever} beans so that every knowledge
 * search, from {@code QuestionAnswerAdvisor}, {@code RetrievalAugmentationAdvisor} or a
 * hand-written tool, passes the knowledge hooks. The RAG advisors are final, so the beans
 * they use are wrapped instead; the proxy keeps the bean's class, so injection by the
 * concrete type still works.
 */
public final class KnowledgeBeanPostProcessor implements SmartInstantiationAwareBeanPostProcessor {

	private static final Log logger = LogFactory.getLog(KnowledgeBeanPostProcessor.class);

	private static final String VECTOR_STORE = "org.springframework.ai.vectorstore.VectorStore";

	private static final String DOCUMENT_RETRIEVER = "org.springframework.ai.rag.retrieval.search.DocumentRetriever";

	private final KnowledgeSearchInterceptor interceptor;

	private final Class<?>[] searchTypes;

	/**
	 * Create the post-processor.
	 * @param hooks the hook runner, resolved lazily at the first search
	 */
	public KnowledgeBeanPostProcessor(ObjectProvider<HookRunner> hooks) {
		this.interceptor = new KnowledgeSearchInterceptor(hooks);
		ClassLoader classLoader = KnowledgeBeanPostProcessor.class.getClassLoader();
		this.searchTypes = Stream.of(VECTOR_STORE, DOCUMENT_RETRIEVER)
			.filter((name) -> ClassUtils.isPresent(name, classLoader))
			.map((name) -> ClassUtils.resolveClassName(name, classLoader))
			.toArray(Class<?>[]::new);
	}

	/**
	 * Return the class of the proxy this processor will make of such a bean: during the
	 * AOT build this generates the proxy class ahead of time, so a native image has it.
	 */
	@Override
	public Class<?> determineBeanType(Class<?> beanClass, String beanName) {
		if (!isSearchType(beanClass) || beanClass.isInterface() || Modifier.isFinal(beanClass.getModifiers())
				|| beanClass.isSynthetic()) {
			return beanClass;
		}
		ProxyFactory proxyFactory = proxyFactory(beanClass);
		proxyFactory.setTargetClass(beanClass);
		return proxyFactory.getProxyClass(beanClass.getClassLoader());
	}

	private boolean isSearchType(Class<?> beanClass) {
		for (Class<?> searchType : this.searchTypes) {
			if (searchType.isAssignableFrom(beanClass)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		for (Class<?> searchType : this.searchTypes) {
			if (searchType.isInstance(bean)) {
				return wrap(bean, beanName);
			}
		}
		return bean;
	}

	private Object wrap(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		boolean lambda = targetClass.isSynthetic() || targetClass.getName().contains("$$Lambda");
		if (Modifier.isFinal(targetClass.getModifiers()) && !lambda) {
			// an interface proxy would break injection by the bean's own class
			logger.warn("Knowledge hooks do not run for bean '" + beanName + "': its class " + targetClass.getName()
					+ " is final and cannot be proxied by class");
			return bean;
		}
		ProxyFactory proxyFactory = proxyFactory(targetClass);
		proxyFactory.setTarget(bean);
		// keep the concrete class, so injection by the concrete type still works
		proxyFactory.setProxyTargetClass(!lambda);
		return proxyFactory.getProxy(targetClass.getClassLoader());
	}

	/**
	 * The proxy's configuration, the same for the class made ahead of time and for the
	 * proxy of the bean, so that the bean's proxy is of the class made ahead of time.
	 */
	private ProxyFactory proxyFactory(Class<?> targetClass) {
		ProxyFactory proxyFactory = new ProxyFactory();
		proxyFactory.setInterfaces(ClassUtils.getAllInterfacesForClass(targetClass, targetClass.getClassLoader()));
		proxyFactory.setProxyTargetClass(true);
		proxyFactory.addAdvice(this.interceptor);
		return proxyFactory;
	}

}
