package io.mantlehooks.ai.knowledge;

import java.util.List;
import java.util.Map;

import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.execution.HookRunner;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

/**
 * Intercepts {@code VectorStore.similaritySearch(SearchRequest)} and
 * {@code DocumentRetriever.retrieve(Query)} so every knowledge search passes the
 * knowledge hooks; every other method (add, delete, filters, top-k, threshold) is
 * untouched.
 */
final class KnowledgeSearchInterceptor implements MethodInterceptor {

	private static final boolean RAG_PRESENT = ClassUtils.isPresent("org.springframework.ai.rag.Query",
			KnowledgeSearchInterceptor.class.getClassLoader());

	private static final boolean VECTOR_STORE_PRESENT = ClassUtils.isPresent(
			"org.springframework.ai.vectorstore.SearchRequest", KnowledgeSearchInterceptor.class.getClassLoader());

	private final ObjectProvider<HookRunner> hooks;

	private volatile @Nullable KnowledgeStage stage;

	KnowledgeSearchInterceptor(ObjectProvider<HookRunner> hooks) {
		this.hooks = hooks;
	}

	private @Nullable KnowledgeStage stage() {
		KnowledgeStage current = this.stage;
		if (current == null) {
			HookRunner runner = this.hooks.getIfAvailable();
			if (runner != null) {
				current = new KnowledgeStage(runner);
				this.stage = current;
			}
		}
		return current;
	}

	@Override
	@SuppressWarnings("unchecked")
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object[] arguments = invocation.getArguments();
		KnowledgeStage knowledge = stage();
		if (knowledge == null || arguments.length != 1
				|| !List.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
			return invocation.proceed();
		}
		if (VECTOR_STORE_PRESENT && "similaritySearch".equals(invocation.getMethod().getName())
				&& arguments[0] instanceof SearchRequest request) {
			return knowledge.search(request.getQuery(), CurrentTurn.get(),
					(query) -> (List<Document>) proceed(invocation, SearchRequest.from(request).query(query).build()));
		}
		if (VECTOR_STORE_PRESENT && "similaritySearch".equals(invocation.getMethod().getName())
				&& arguments[0] instanceof String text) {
			// the String variant is a default method that calls the target directly, so
			// it is hooked here rather than through the SearchRequest variant
			return knowledge.search(text, CurrentTurn.get(), (query) -> (List<Document>) proceed(invocation, query));
		}
		if (RAG_PRESENT && "retrieve".equals(invocation.getMethod().getName()) && arguments[0] instanceof Query query) {
			return knowledge.search(query.text(), turnOf(query),
					(text) -> (List<Document>) proceed(invocation, query.mutate().text(text).build()));
		}
		return invocation.proceed();
	}

	/**
	 * Spring AI's RAG advisor passes the advisor context on as the query context; that
	 * names the turn even on the retrieval executor's threads.
	 */
	private static @Nullable Turn turnOf(Query query) {
		Map<String, Object> context = query.context();
		Object turn = (context != null) ? context.get(Turn.CONTEXT_KEY) : null;
		return (turn instanceof Turn given) ? given : CurrentTurn.get();
	}

	private static Object proceed(MethodInvocation invocation, Object argument) {
		invocation.getArguments()[0] = argument;
		try {
			return invocation.proceed();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

}
