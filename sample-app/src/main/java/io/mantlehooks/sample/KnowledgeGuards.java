package io.mantlehooks.sample;

import java.util.Locale;

import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.annotation.ModifyKnowledgeQuery;
import io.mantlehooks.annotation.ModifyKnowledgeResults;

import org.springframework.stereotype.Component;

/**
 * Retrieval hooks: customers' words are mapped to the documents' words before the search,
 * and internal documents never leave it.
 */
@Component
public class KnowledgeGuards {

	/**
	 * Query rewrite: "parcel" and "package" mean shipping, "send back" means return.
	 * @param query the search about to run
	 * @return the search in the shop's words
	 */
	@ModifyKnowledgeQuery
	public KnowledgeQueryPayload useShopWords(KnowledgeQueryPayload query) {
		String text = query.query()
			.toLowerCase(Locale.ROOT)
			.replace("parcel", "shipping ship")
			.replace("package", "shipping ship")
			.replace("send back", "return refund");
		return query.withQuery(text);
	}

	/**
	 * Results filter: passages from internal documents are dropped.
	 * @param results what the search found
	 * @return the results without internal passages
	 */
	@ModifyKnowledgeResults
	public KnowledgeResultsPayload dropInternal(KnowledgeResultsPayload results) {
		return results.withPassages(
				results.passages().stream().filter((passage) -> !"internal".equals(passage.scope())).toList());
	}

}
