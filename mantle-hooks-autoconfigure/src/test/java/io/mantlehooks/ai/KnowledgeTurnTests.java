package io.mantlehooks.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.Passage;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.mantlehooks.test.LoopbackOpenAiServer.Reply;
import io.mantlehooks.test.LoopbackOpenAiServer.ToolCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.vectorstore.QuestionAnswerAdvisor;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.advisor.RetrievalAugmentationAdvisor;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.SimpleVectorStore;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Knowledge searches from {@code QuestionAnswerAdvisor},
 * {@code RetrievalAugmentationAdvisor} and a search tool, against a real
 * {@code SimpleVectorStore}: what the hooks change is what the model's prompt contains.
 */
class KnowledgeTurnTests {

	private static final String REFUNDS = "Refund policy: refunds take 5 days.";

	private static final String SHIPPING = "Shipping policy: shipping takes 2 days.";

	private static final String WARRANTY = "Warranty policy: the warranty lasts 2 years.";

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi)
		.withUserConfiguration(KnowledgeConfiguration.class);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void queryRewriteChangesWhatQuestionAnswerAdvisorRetrieves() {
		this.openAi.reply(Reply.text("5 days."));
		this.contextRunner.run((context) -> {
			hooks(context).query = (query) -> query.withQuery("refund refund policy");
			chatClient(context).prompt()
				.user("How long for ticket 1234?")
				.advisors(qa(context, 1))
				.advisors(MantleHooks.identity("user-7", Channel.of("web")))
				.call()
				.content();
			assertThat(lastUserMessage(0)).contains(REFUNDS).doesNotContain(SHIPPING);
			assertThat(hooks(context).queries).singleElement().satisfies((query) -> {
				assertThat(query.query()).isEqualTo("How long for ticket 1234?");
				assertThat(query.senderId()).isEqualTo("user-7");
				assertThat(query.channel()).isEqualTo(Channel.of("web"));
			});
		});
	}

	@Test
	void resultsFilterDropsLowScorePassagesFromThePrompt() {
		this.openAi.reply(Reply.text("Refunds take 5 days."));
		this.contextRunner.run((context) -> {
			hooks(context).passages = (results) -> results.withPassages(results.passages()
				.stream()
				.filter((passage) -> passage.score() != null && passage.score() > 0.9)
				.toList());
			chatClient(context).prompt().user("refund policy refund").advisors(qa(context, 3)).call().content();
			List<Passage> seen = hooks(context).results.get(0).passages();
			assertThat(seen).hasSize(3);
			assertThat(seen).filteredOn((passage) -> passage.text().equals(REFUNDS))
				.singleElement()
				.satisfies((passage) -> {
					assertThat(passage.source()).isEqualTo("refunds.md");
					assertThat(passage.scope()).isEqualTo("billing");
					assertThat(passage.metadata()).containsEntry("lang", "en").doesNotContainKeys("source", "scope");
				});
			assertThat(lastUserMessage(0)).contains(REFUNDS).doesNotContain(SHIPPING).doesNotContain(WARRANTY);
		});
	}

	@Test
	void crashingQueryHookSkipsTheSearch() {
		this.openAi.reply(Reply.text("I don't know."));
		this.contextRunner.run((context) -> {
			KeywordEmbeddingModel embeddings = context.getBean(KeywordEmbeddingModel.class);
			int before = embeddings.calls.get();
			hooks(context).query = (query) -> {
				throw new IllegalStateException("boom");
			};
			chatClient(context).prompt().user("refund policy").advisors(qa(context, 3)).call().content();
			assertThat(embeddings.calls.get()).as("no search, so no query embedding").isEqualTo(before);
			assertThat(lastUserMessage(0)).doesNotContain(REFUNDS);
			assertThat(hooks(context).results).isEmpty();
		});
	}

	@Test
	void crashingResultsHookKeepsTheOriginalPassages() {
		this.openAi.reply(Reply.text("Refunds take 5 days."));
		this.contextRunner.run((context) -> {
			hooks(context).passages = (results) -> {
				throw new IllegalStateException("boom");
			};
			chatClient(context).prompt().user("refund policy refund").advisors(qa(context, 1)).call().content();
			assertThat(lastUserMessage(0)).contains(REFUNDS);
		});
	}

	@Test
	void blankQuerySkipsTheHooks() {
		this.contextRunner.run((context) -> {
			List<Document> found = context.getBean(VectorStore.class)
				.similaritySearch(SearchRequest.builder().query(" ").topK(1).build());
			assertThat(found).hasSize(1);
			assertThat(hooks(context).queries).isEmpty();
		});
	}

	@Test
	void vectorStoreKeepsItsTypeAndApiAndIsEmptyOfIdentityOutsideATurn() {
		this.contextRunner.run((context) -> {
			SimpleVectorStore store = context.getBean(SimpleVectorStore.class);
			store.add(List.of(new Document("extra-1", "Ticket policy: tickets are answered in 1 day.", Map.of())));
			store.delete(List.of("extra-1"));
			List<Document> found = store.similaritySearch(SearchRequest.builder().query("refund").topK(1).build());
			assertThat(found).extracting(Document::getText).containsExactly(REFUNDS);
			assertThat(hooks(context).queries).singleElement()
				.satisfies((query) -> assertThat(query.senderId()).isEmpty());
		});
	}

	@Test
	void retrievalAugmentationAdvisorPassesTheHooksOnItsOwnThreads() {
		this.openAi.reply(Reply.text("Shipping takes 2 days."));
		this.contextRunner.run((context) -> {
			hooks(context).query = (query) -> query.withQuery("shipping shipping policy");
			RetrievalAugmentationAdvisor rag = RetrievalAugmentationAdvisor.builder()
				.documentRetriever(VectorStoreDocumentRetriever.builder()
					.vectorStore(context.getBean(VectorStore.class))
					.topK(1)
					.build())
				.build();
			chatClient(context).prompt()
				.user("When does my parcel arrive?")
				.advisors(rag)
				.advisors(MantleHooks.identity("user-8", Channel.of("app")))
				.call()
				.content();
			assertThat(lastUserMessage(0)).contains(SHIPPING).doesNotContain(REFUNDS);
			assertThat(hooks(context).queries).singleElement()
				.satisfies((query) -> assertThat(query.senderId()).isEqualTo("user-8"));
		});
	}

	@Test
	void documentRetrieverBeanOverAHookedStoreIsHookedOnce() {
		this.openAi.reply(Reply.text("Ok."));
		this.contextRunner
			.withBean("retriever", DocumentRetriever.class,
					() -> VectorStoreDocumentRetriever.builder().vectorStore(new ReferenceVectorStore()).build())
			.run((context) -> {
				// a retriever bean whose store is the hooked SimpleVectorStore bean
				DocumentRetriever retriever = VectorStoreDocumentRetriever.builder()
					.vectorStore(context.getBean(VectorStore.class))
					.topK(1)
					.build();
				DocumentRetriever hookedRetriever = context.getBean(DocumentRetriever.class);
				assertThat(hookedRetriever).isNotNull();
				RetrievalAugmentationAdvisor rag = RetrievalAugmentationAdvisor.builder()
					.documentRetriever(retriever)
					.build();
				chatClient(context).prompt()
					.user("refund policy")
					.advisors(rag)
					.advisors(MantleHooks.identity("user-9", Channel.of("app")))
					.call()
					.content();
				assertThat(hooks(context).queries).hasSize(1);
				assertThat(lastUserMessage(0)).contains(REFUNDS);
			});
	}

	@Test
	void searchToolInsideAToolTurnPassesTheHooks() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "search_docs", "{\"query\":\"warranty\"}")),
				Reply.text("Two years."));
		this.contextRunner.run((context) -> {
			hooks(context).query = (query) -> query.withQuery("warranty policy warranty");
			SearchTools tools = new SearchTools(context.getBean(VectorStore.class));
			String reply = chatClient(context).prompt()
				.user("How long is the warranty?")
				.tools(tools)
				.advisors(MantleHooks.identity("user-10", Channel.of("app")))
				.call()
				.content();
			assertThat(reply).isEqualTo("Two years.");
			assertThat(hooks(context).queries).singleElement().satisfies((query) -> {
				assertThat(query.query()).isEqualTo("warranty");
				assertThat(query.senderId()).isEqualTo("user-10");
			});
			assertThat(this.openAi.messages(1).get(2)).contains("the warranty lasts 2 years");
		});
	}

	@Test
	void streamedTurnKeepsTheSenderIdAcrossReactorThreads() {
		this.openAi.reply(Reply.text("Refunds take 5 days."));
		this.contextRunner.run((context) -> {
			List<String> chunks = chatClient(context).prompt()
				.user("refund policy")
				.advisors(qa(context, 1))
				.advisors(MantleHooks.identity("user-11", Channel.of("stream")))
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", chunks)).isEqualTo("Refunds take 5 days.");
			assertThat(hooks(context).queries).extracting(KnowledgeQueryPayload::senderId).containsExactly("user-11");
		});
	}

	@Test
	void stringSearchPassesTheHooksToo() {
		this.contextRunner.run((context) -> {
			hooks(context).query = (query) -> query.withQuery("warranty policy warranty");
			List<Document> found = context.getBean(VectorStore.class).similaritySearch("refund");
			assertThat(found).extracting(Document::getText).first().isEqualTo(WARRANTY);
			assertThat(hooks(context).queries).extracting(KnowledgeQueryPayload::query).containsExactly("refund");
		});
	}

	@Test
	void blankRewrittenQueryFindsNothingInsteadOfFailing() {
		this.contextRunner
			.withBean("retriever", DocumentRetriever.class,
					() -> VectorStoreDocumentRetriever.builder().vectorStore(new ReferenceVectorStore()).build())
			.run((context) -> {
				hooks(context).query = (query) -> query.withQuery(" ");
				assertThat(context.getBean(DocumentRetriever.class).retrieve(new Query("refund"))).isEmpty();
				assertThat(context.getBean(VectorStore.class).similaritySearch("refund")).isEmpty();
			});
	}

	@Test
	void finalStoreClassIsLeftUnproxiedSoInjectionByItsTypeWorks() {
		this.contextRunner.withBean("finalStore", ReferenceVectorStore.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("finalStore")).isExactlyInstanceOf(ReferenceVectorStore.class);
		});
	}

	@Test
	void everyRoundOfAStreamedToolTurnKnowsTheSender() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "search_docs", "{\"query\":\"warranty\"}")),
				Reply.text("Two years."));
		this.contextRunner.run((context) -> {
			List<String> chunks = chatClient(context).prompt()
				.user("refund policy")
				.advisors(qa(context, 1))
				.tools(new SearchTools(context.getBean(VectorStore.class)))
				.advisors(MantleHooks.identity("user-12", Channel.of("stream")))
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(String.join("", chunks)).isEqualTo("Two years.");
			assertThat(hooks(context).queries).hasSize(3)
				.extracting(KnowledgeQueryPayload::senderId)
				.containsOnly("user-12");
		});
	}

	@Test
	void withReactorsAutomaticContextPropagationTheTurnTravelsInTheReactorContextAlone() {
		this.openAi.reply(Reply.toolCalls(new ToolCall("call_1", "search_docs", "{\"query\":\"warranty\"}")),
				Reply.text("Two years."));
		Hooks.enableAutomaticContextPropagation();
		try {
			this.contextRunner.run((context) -> {
				assertThat(context.getBean(CurrentTurnPropagation.class).isRegistered()).isTrue();
				List<String> chunks = chatClient(context).prompt()
					.user("refund policy")
					.advisors(qa(context, 1))
					.tools(new SearchTools(context.getBean(VectorStore.class)))
					.advisors(MantleHooks.identity("user-13", Channel.of("stream")))
					.stream()
					.content()
					.collectList()
					.block(Duration.ofSeconds(60));
				assertThat(String.join("", chunks)).isEqualTo("Two years.");
				assertThat(hooks(context).queries).hasSize(3)
					.extracting(KnowledgeQueryPayload::senderId)
					.containsOnly("user-13");
			});
		}
		finally {
			Hooks.disableAutomaticContextPropagation();
		}
	}

	private String lastUserMessage(int request) {
		List<String> messages = this.openAi.messages(request);
		return messages.get(messages.size() - 1);
	}

	private static QuestionAnswerAdvisor qa(AssertableApplicationContext context, int topK) {
		return QuestionAnswerAdvisor.builder(context.getBean(VectorStore.class))
			.searchRequest(SearchRequest.builder().topK(topK).similarityThresholdAll().build())
			.build();
	}

	private static ChatClient chatClient(AssertableApplicationContext context) {
		return ChatTestSupport.chatClient(context);
	}

	private static KnowledgeHooks hooks(AssertableApplicationContext context) {
		return context.getBean(KnowledgeHooks.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class KnowledgeConfiguration {

		@Bean
		KeywordEmbeddingModel keywordEmbeddingModel() {
			return new KeywordEmbeddingModel();
		}

		@Bean
		SimpleVectorStore vectorStore(KeywordEmbeddingModel embeddingModel) {
			SimpleVectorStore store = SimpleVectorStore.builder(embeddingModel).build();
			store.add(List.of(
					new Document("refunds", REFUNDS, Map.of("source", "refunds.md", "scope", "billing", "lang", "en")),
					new Document("shipping", SHIPPING, Map.of("source", "shipping.md", "scope", "logistics")),
					new Document("warranty", WARRANTY, Map.of("source", "warranty.md", "scope", "support"))));
			return store;
		}

		@Bean
		KnowledgeHooks knowledgeHooks() {
			return new KnowledgeHooks();
		}

	}

	/**
	 * An empty store of a final class: for beans that only prove what is (or is not)
	 * wrapped.
	 */
	static final class ReferenceVectorStore implements VectorStore {

		@Override
		public void add(List<Document> documents) {
		}

		@Override
		public void delete(List<String> idList) {
		}

		@Override
		public void delete(Filter.Expression filterExpression) {
		}

		@Override
		public List<Document> similaritySearch(SearchRequest request) {
			return List.of();
		}

	}

	static class SearchTools {

		private final VectorStore store;

		SearchTools(VectorStore store) {
			this.store = store;
		}

		@Tool(name = "search_docs", description = "Search the policy documents")
		String searchDocs(String query) {
			return this.store.similaritySearch(SearchRequest.builder().query(query).topK(1).build())
				.stream()
				.map(Document::getText)
				.toList()
				.toString();
		}

	}

}
