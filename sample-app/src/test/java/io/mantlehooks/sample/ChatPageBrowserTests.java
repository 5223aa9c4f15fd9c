package io.mantlehooks.sample;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chat page in a real browser while a reply streams: it grows sentence by sentence,
 * each sentence in house style, and a reply the outgoing-text hook vetoes part-way is
 * replaced by the named reply. The page records every text its newest reply shows (a
 * {@code MutationObserver} the test installs), so the steps are asserted, not times; a
 * gate can hold the demo model after its first sentence, so what the page shows while the
 * model is still writing is asserted too.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ChatPageBrowserTests extends BrowserTests {

	/**
	 * Records each text the newest assistant bubble shows, once per change, in
	 * {@code window.replyTexts}.
	 */
	private static final String RECORD_REPLY_TEXTS = """
			window.replyTexts = [];
			const list = document.getElementById('messages');
			new MutationObserver(() => {
			  const replies = list.querySelectorAll('li.assistant .text');
			  if (replies.length === 0) {
			    return;
			  }
			  const text = replies[replies.length - 1].textContent;
			  if (window.replyTexts[window.replyTexts.length - 1] !== text) {
			    window.replyTexts.push(text);
			  }
			}).observe(list, { childList: true, subtree: true, characterData: true });
			""";

	private static final String DELIVERY = "We have three delivery options. Standard delivery costs €4.90 "
			+ "and takes two business days. Express delivery costs €9.90 and arrives the next business day. "
			+ "Orders above €50 ship for free.";

	private static final String WITHHELD = "Sorry, I can't share that. Our current offers are on the shop's offers page.";

	@Autowired
	ModelGate gate;

	@BeforeEach
	void openTheChatPage() {
		this.gate.reset();
		browser.get(url("/"));
		browser.executeScript(RECORD_REPLY_TEXTS);
	}

	@Test
	void theFirstSentenceOfAnAgentsReplyShowsWhileTheModelIsStillWriting() {
		// the shop agent offers tools and has a tool-call hook: its text still streams
		this.gate.holdAfterFirstSentence();
		int before = browser.findElements(By.cssSelector("#messages li.assistant")).size();
		browser.findElement(By.id("message")).sendKeys("What delivery options do you have?");
		browser.findElement(By.cssSelector("#composer button")).click();
		Browser.waitFor(browser)
			.withMessage("the first sentence on the page while the model is held after it")
			.until((page) -> this.gate.holding() && newestReply().equals("We have three delivery options. "));
		this.gate.open();
		By latest = By.cssSelector("#messages li.assistant:nth-of-type(" + 2 * (before + 1) + ")[data-outcome]");
		Browser.waitFor(browser).until((page) -> !page.findElements(latest).isEmpty());
		assertThat(newestReply()).isEqualTo(DELIVERY);
	}

	@Test
	void aLongReplyGrowsSentenceBySentenceInHouseStyle() {
		String turnId = Browser.send(browser, "What delivery options do you have?");
		List<String> texts = replyTexts();

		assertThat(texts).last().isEqualTo(DELIVERY);
		assertThat(Browser.text(browser, text(turnId))).isEqualTo(DELIVERY);
		assertThat(Browser.attribute(browser, reply(turnId), "data-outcome")).isEqualTo("completed");
		// the reply reached the page in steps, each one the start of the final text
		List<String> before = texts.subList(0, texts.size() - 1).stream().filter((text) -> !text.isEmpty()).toList();
		assertThat(before).hasSizeGreaterThanOrEqualTo(2).allSatisfy((text) -> assertThat(DELIVERY).startsWith(text));
		assertThat(texts).noneMatch((text) -> text.contains("EUR"));
	}

	@Test
	void aVetoedSentenceReplacesTheDraftWithTheNamedReply() {
		String turnId = Browser.send(browser, "Do you have a discount code?");
		List<String> texts = replyTexts();

		assertThat(texts).last().isEqualTo(WITHHELD);
		assertThat(Browser.text(browser, text(turnId))).isEqualTo(WITHHELD);
		assertThat(Browser.attribute(browser, reply(turnId), "data-outcome")).isEqualTo("rejected");
		// the first sentences were shown, then taken back; the vetoed one never arrived
		assertThat(texts).anyMatch((text) -> text.startsWith("Let me check our current offers."));
		assertThat(texts).noneMatch((text) -> text.contains("STAFF-50") || text.contains("Internal note"));
		assertThat(Browser.text(browser, reply(turnId))).doesNotContain("Let me check").doesNotContain("New customers");
	}

	private static String newestReply() {
		List<String> texts = replyTexts();
		return texts.isEmpty() ? "" : texts.get(texts.size() - 1);
	}

	@SuppressWarnings("unchecked")
	private static List<String> replyTexts() {
		return (List<String>) browser.executeScript("return window.replyTexts;");
	}

	private static By reply(String turnId) {
		return By.cssSelector("#messages li[data-turn-id='" + turnId + "']");
	}

	private static By text(String turnId) {
		return By.cssSelector("#messages li[data-turn-id='" + turnId + "'] .text");
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class GateConfiguration {

		@Bean
		ModelGate modelGate() {
			return new ModelGate();
		}

		@Bean
		static BeanPostProcessor gatedModel(ObjectProvider<ModelGate> gate) {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					return (bean instanceof DemoChatModel model) ? new GatedModel(model, gate.getObject()) : bean;
				}

			};
		}

	}

	/**
	 * Holds the demo model's stream after the first sentence, when asked to, until the
	 * test opens it.
	 */
	static final class ModelGate {

		private volatile boolean armed;

		private final AtomicBoolean holding = new AtomicBoolean();

		private volatile CompletableFuture<Void> opened = CompletableFuture.completedFuture(null);

		void reset() {
			this.armed = false;
			this.holding.set(false);
			this.opened.complete(null);
		}

		void holdAfterFirstSentence() {
			this.opened = new CompletableFuture<>();
			this.armed = true;
		}

		boolean holding() {
			return this.holding.get();
		}

		void open() {
			this.opened.complete(null);
		}

		Flux<ChatResponse> gate(Flux<ChatResponse> chunks) {
			if (!this.armed) {
				return chunks;
			}
			this.armed = false;
			CompletableFuture<Void> opened = this.opened;
			AtomicBoolean sentenceEnded = new AtomicBoolean();
			return chunks.concatMap((chunk) -> {
				if (sentenceEnded.get() && this.holding.compareAndSet(false, true)) {
					return Mono.fromFuture(opened).thenReturn(chunk);
				}
				String text = chunk.getResult().getOutput().getText();
				if (text != null && text.endsWith(". ")) {
					sentenceEnded.set(true);
				}
				return Mono.just(chunk);
			});
		}

	}

	/** The demo model, its streams passed through the gate. */
	static final class GatedModel implements ChatModel {

		private final DemoChatModel model;

		private final ModelGate gate;

		GatedModel(DemoChatModel model, ModelGate gate) {
			this.model = model;
			this.gate = gate;
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			return this.model.call(prompt);
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return this.gate.gate(this.model.stream(prompt));
		}

		@Override
		public ChatOptions getDefaultOptions() {
			return this.model.getDefaultOptions();
		}

		@Override
		public ChatOptions getOptions() {
			return this.model.getOptions();
		}

	}

}
