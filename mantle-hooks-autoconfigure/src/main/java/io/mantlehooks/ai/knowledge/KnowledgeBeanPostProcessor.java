package io.mantlehooks.ai.knowledge;

import java.lang.reflect.Modifier;

import io.mantlehooks.runtime.HookRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Wraps {@code VectorStore} and {@code DocumentRetriever} beans so that every knowledge
 * search, from {@code QuestionAnswerAdvisor}, {@code RetrievalAugmentationAdvisor} or a
 * hand-written tool, passes the knowledge hooks. The RAG advisors are final, so the beans
 * they use are wrapped instead; the proxy keeps the bean's class, so injection by the
 * concrete type still works.
 */
public final class KnowledgeBeanPostProcessor implements BeanPostProcessor {

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
		this.searchTypes = java.util.stream.Stream.of(VECTOR_STORE, DOCUMENT_RETRIEVER)
			.filter((name) -> ClassUtils.isPresent(name, classLoader))
			.map((name) -> ClassUtils.resolveClassName(name, classLoader))
			.toArray(Class<?>[]::new);
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
		ProxyFactory proxyFactory = new ProxyFactory(bean);
		// keep the concrete class, so injection by the concrete type still works
		proxyFactory.setProxyTargetClass(!lambda);
		proxyFactory.addAdvice(this.interceptor);
		return proxyFactory.getProxy(targetClass.getClassLoader());
	}

}
