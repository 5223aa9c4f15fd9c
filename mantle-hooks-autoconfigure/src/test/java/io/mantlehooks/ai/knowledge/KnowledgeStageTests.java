package io.mantlehooks.ai.knowledge;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.Passage;
import io.mantlehooks.annotation.ModifyKnowledgeResults;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.execution.HookRunner;
import org.junit.jupiter.api.Test;

import org.springframework.ai.document.Document;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Passages map to documents and back without loss.
 */
class KnowledgeStageTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
		.withBean("resultsHooks", ResultsHooks.class);

	@Test
	void passagesTheHookKeptAreTheOriginalDocumentsAndNewOnesCarryTheirFields() {
		Document first = Document.builder()
			.id("doc-1")
			.text("First.")
			.metadata(Map.of("source", "a.md", "scope", "billing", "page", 3))
			.score(0.9)
			.build();
		Document second = Document.builder()
			.id("doc-2")
			.text("Second.")
			.metadata(Map.of("source", "b.md"))
			.score(0.4)
			.build();
		this.contextRunner.run((context) -> {
			ResultsHooks hooks = context.getBean(ResultsHooks.class);
			hooks.passages = (results) -> results.withPassages(List
				.of(new Passage("Rewritten.", "support", "c.md", 0.5, Map.of("page", 9)), results.passages().get(0)));
			List<Document> documents = new KnowledgeStage(context.getBean(HookRunner.class)).search("q", null,
					(query) -> List.of(first, second));
			assertThat(documents).hasSize(2);
			assertThat(documents.get(1)).isSameAs(first);
			Document rewritten = documents.get(0);
			assertThat(rewritten.getText()).isEqualTo("Rewritten.");
			assertThat(rewritten.getScore()).isEqualTo(0.5);
			assertThat(rewritten.getMetadata()).containsEntry("source", "c.md")
				.containsEntry("scope", "support")
				.containsEntry("page", 9);
			KnowledgeResultsPayload seen = hooks.results.get(0);
			assertThat(seen.passages().get(0))
				.isEqualTo(new Passage("First.", "billing", "a.md", 0.9, Map.of("page", 3)));
			assertThat(seen.passages().get(1).scope()).isEmpty();
		});
	}

	static class ResultsHooks {

		final List<KnowledgeResultsPayload> results = new CopyOnWriteArrayList<>();

		volatile UnaryOperator<KnowledgeResultsPayload> passages = UnaryOperator.identity();

		@ModifyKnowledgeResults
		KnowledgeResultsPayload rewrite(KnowledgeResultsPayload payload) {
			this.results.add(payload);
			return this.passages.apply(payload);
		}

	}

}
