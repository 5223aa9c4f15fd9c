package io.mantlehooks.ai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.annotation.ModifyKnowledgeQuery;
import io.mantlehooks.annotation.ModifyKnowledgeResults;

/**
 * Knowledge hooks scripted per test, recording what they saw.
 */
class KnowledgeHooks {

	final List<KnowledgeQueryPayload> queries = new CopyOnWriteArrayList<>();

	final List<KnowledgeResultsPayload> results = new CopyOnWriteArrayList<>();

	volatile UnaryOperator<KnowledgeQueryPayload> query = UnaryOperator.identity();

	volatile UnaryOperator<KnowledgeResultsPayload> passages = UnaryOperator.identity();

	@ModifyKnowledgeQuery
	KnowledgeQueryPayload rewriteQuery(KnowledgeQueryPayload payload) {
		this.queries.add(payload);
		return this.query.apply(payload);
	}

	@ModifyKnowledgeResults
	KnowledgeResultsPayload filterPassages(KnowledgeResultsPayload payload) {
		this.results.add(payload);
		return this.passages.apply(payload);
	}

}
