package io.mantlehooks.ai.knowledge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import io.mantlehooks.HookPoint;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.Passage;
import io.mantlehooks.ai.turn.Turn;
import io.mantlehooks.runtime.CallerContext;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.execution.HookRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.document.Document;

/**
 * The knowledge hooks around one search: the query hooks before it (a failing modifier
 * skips the search: no passages), the results hooks after it (a failing modifier keeps
 * the original passages). A blank query skips hooks and search as if there were no hooks.
 */
final class KnowledgeStage {

	static final String SOURCE = "source";

	static final String SCOPE = "scope";

	private static final ThreadLocal<Boolean> SEARCHING = new ThreadLocal<>();

	private final HookRunner hooks;

	KnowledgeStage(HookRunner hooks) {
		this.hooks = hooks;
	}

	List<Document> search(String query, @Nullable Turn turn, Function<String, List<Document>> search) {
		if (query == null || query.isBlank() || Boolean.TRUE.equals(SEARCHING.get()) || !hasHooks(turn)) {
			// nested searches (a hooked retriever over a hooked vector store) are
			// hooked once
			return search.apply(query);
		}
		SEARCHING.set(Boolean.TRUE);
		try {
			return hookedSearch(query, turn, search);
		}
		finally {
			SEARCHING.remove();
		}
	}

	/**
	 * Whether the turn's agent hooks searches; outside a turn, the default agent's hooks
	 * run.
	 */
	private boolean hasHooks(@Nullable Turn turn) {
		HookScope scope = (turn != null) ? turn.scope() : HookScope.none();
		return this.hooks.hasHooks(HookPoint.KNOWLEDGE_QUERY, scope)
				|| this.hooks.hasHooks(HookPoint.KNOWLEDGE_RESULTS, scope);
	}

	private List<Document> hookedSearch(String query, @Nullable Turn current, Function<String, List<Document>> search) {
		// outside a turn the identity is empty
		Turn turn = (current != null) ? current : Turn.detached(CallerContext.capture());
		KnowledgeQueryPayload queryPayload = turn.knowledgeQuery(query);
		ModifyResult<KnowledgeQueryPayload> queryResult = this.hooks.runAndWait(HookPoint.KNOWLEDGE_QUERY, queryPayload,
				turn.scope());
		if (!(queryResult instanceof ModifyResult.Proceed<KnowledgeQueryPayload> proceed)) {
			// fail closed: no search, and the model sees the same empty result as
			// no match
			return List.of();
		}
		String finalQuery = proceed.payload().query();
		if (finalQuery.isBlank()) {
			// nothing left to search for: the same result as no match
			return List.of();
		}
		List<Document> documents = search.apply(finalQuery);
		if (!this.hooks.hasHooks(HookPoint.KNOWLEDGE_RESULTS, turn.scope())) {
			return documents;
		}
		List<Passage> passages = documents.stream().map(KnowledgeStage::toPassage).toList();
		KnowledgeResultsPayload resultsPayload = turn.knowledgeResults(finalQuery, passages);
		ModifyResult<KnowledgeResultsPayload> results = this.hooks.runAndWait(HookPoint.KNOWLEDGE_RESULTS,
				resultsPayload, turn.scope());
		if (results instanceof ModifyResult.Proceed<KnowledgeResultsPayload> rewritten) {
			return toDocuments(rewritten.payload().passages(), passages, documents);
		}
		// fail open: the original passages
		return documents;
	}

	static Passage toPassage(Document document) {
		Map<String, Object> metadata = new LinkedHashMap<>(document.getMetadata());
		Object source = metadata.remove(SOURCE);
		Object scope = metadata.remove(SCOPE);
		return new Passage(Objects.toString(document.getText(), ""), (scope != null) ? scope.toString() : "",
				(source != null) ? source.toString() : "", document.getScore(), metadata);
	}

	/**
	 * Map passages back: a passage the hook kept unchanged is its original document (id,
	 * metadata and all); a new or changed passage becomes a new document.
	 */
	private static List<Document> toDocuments(List<Passage> passages, List<Passage> originals,
			List<Document> documents) {
		List<Document> mapped = new ArrayList<>(passages.size());
		boolean[] used = new boolean[originals.size()];
		for (Passage passage : passages) {
			int index = unusedIndexOf(originals, passage, used);
			if (index >= 0) {
				used[index] = true;
				mapped.add(documents.get(index));
			}
			else {
				mapped.add(toDocument(passage));
			}
		}
		return mapped;
	}

	private static int unusedIndexOf(List<Passage> originals, Passage passage, boolean[] used) {
		for (int i = 0; i < originals.size(); i++) {
			if (!used[i] && originals.get(i).equals(passage)) {
				return i;
			}
		}
		return -1;
	}

	private static Document toDocument(Passage passage) {
		Map<String, Object> metadata = new LinkedHashMap<>(passage.metadata());
		if (!passage.source().isEmpty()) {
			metadata.put(SOURCE, passage.source());
		}
		if (!passage.scope().isEmpty()) {
			metadata.put(SCOPE, passage.scope());
		}
		return Document.builder().text(passage.text()).metadata(metadata).score(passage.score()).build();
	}

}
