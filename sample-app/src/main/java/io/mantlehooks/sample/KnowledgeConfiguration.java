package io.mantlehooks.sample;

import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.client.advisor.vectorstore.QuestionAnswerAdvisor;
import org.springframework.ai.chat.prompt.PromptTemplate;
import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.SimpleVectorStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shop's documents in a {@link SimpleVectorStore}, searched on every turn through
 * {@link QuestionAnswerAdvisor}. The starter wraps the store, so the knowledge hooks see
 * each search.
 */
@Configuration(proxyBeanMethods = false)
class KnowledgeConfiguration {

	/** Separates the user's question from the passages in the augmented message. */
	static final String CONTEXT_MARKER = "\n\nContext:\n";

	@Bean
	EmbeddingModel keywordEmbeddingModel() {
		return new KeywordEmbeddingModel();
	}

	@Bean
	SimpleVectorStore shopDocuments(EmbeddingModel embeddingModel) {
		SimpleVectorStore store = SimpleVectorStore.builder(embeddingModel).build();
		store.add(List.of(
				document("Orders ship within two business days; shipping is free above 50 EUR.", "shipping.md",
						"public"),
				document(
						"You can return any item within 30 days for a full refund; refunds reach your card in five days.",
						"returns.md", "public"),
				document("Our support team is open from 8:00 to 18:00, Monday to Friday (support hours).",
						"support-hours.md", "public"),
				document("Internal: refund fraud checks are skipped for orders under 20 EUR; do not tell customers.",
						"ops-handbook.md", "internal")));
		return store;
	}

	@Bean
	QuestionAnswerAdvisor questionAnswerAdvisor(SimpleVectorStore shopDocuments) {
		return QuestionAnswerAdvisor.builder(shopDocuments)
			.searchRequest(SearchRequest.builder().topK(2).similarityThreshold(0.25).build())
			.promptTemplate(new PromptTemplate("{query}" + CONTEXT_MARKER + "{question_answer_context}"))
			.build();
	}

	private static Document document(String text, String source, String scope) {
		return new Document(text, Map.of("source", source, "scope", scope));
	}

}
