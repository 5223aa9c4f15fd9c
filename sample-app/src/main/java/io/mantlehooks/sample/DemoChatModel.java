package io.mantlehooks.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import reactor.core.publisher.Flux;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * An offline, deterministic stand-in for a real chat model, so the demo needs no key and
 * no network. It decides from the user's words (see docs/sample.md for the phrases):
 * <ul>
 * <li>"status of order 42" calls {@code orderStatus}; "refund 30 EUR for order 42" calls
 * {@code refund}; "refund 30 for order 42 and 5000 for order 43" calls it twice in one
 * batch;</li>
 * <li>"write a gift note for order 7 to Grandma" calls {@code writeGiftNote}, whose
 * sub-agent request (the {@link Copywriter}'s) it answers with a note: the note names the
 * recipient, copies the gift card's code as the request gives it and ends with the
 * sign-off the request's instructions ask for, if any (the copywriter's hook adds
 * one);</li>
 * <li>"guess" makes it guess (the grounding hook sends it back);</li>
 * <li>"delivery" lists the delivery options with their prices, in several sentences;</li>
 * <li>"discount" answers in several sentences and leaks a staff code in the third (the
 * outgoing-text hook retracts the reply);</li>
 * <li>a question the documents answer is answered from the retrieved passages;</li>
 * <li>anything else is echoed, so you can see what the model was sent.</li>
 * </ul>
 * The {@code openai} profile replaces it with the real OpenAI model.
 */
@Component
@Profile("!openai")
class DemoChatModel implements ChatModel {

	private static final Pattern ORDER = Pattern.compile("(?i)order\\s*#?\\s*([a-z]?-?\\d+)");

	private static final Pattern AMOUNT = Pattern.compile("(?i)(\\d+(?:\\.\\d+)?)\\s*(?:eur|euros?|€)");

	/** One refund of a batch: "30 (EUR) for order 42". */
	private static final Pattern REFUND = Pattern
		.compile("(?i)(\\d+(?:\\.\\d+)?)\\s*(?:eur|euros?|€)?\\s+for\\s+order\\s*#?\\s*([a-z]?-?\\d+)");

	/** Whom a gift note is for: "to Grandma", "to Aunt May". */
	private static final Pattern RECIPIENT = Pattern
		.compile("\\b[Tt]o\\s+(\\p{Lu}[\\p{L}'-]*(?:\\s+\\p{Lu}[\\p{L}'-]*)*)");

	/** The copywriter's request, e.g. "Write a gift note to Grandma for order A-7". */
	private static final Pattern NOTE_REQUEST = Pattern.compile("gift note to (.+?) for order ([\\w-]+)");

	/** The gift card's code, copied as the request gives it. */
	private static final Pattern GIFT_CARD_CODE = Pattern.compile("put its code in the note, (.+?)\\.?$");

	/** An instruction the copywriter follows: "end every note with: ...". */
	private static final Pattern SIGN_OFF = Pattern.compile("(?i)end every note with: (.+)");

	/**
	 * How long a streamed reply takes to start, as a real model's first token does.
	 */
	private static final Duration FIRST_TOKEN = Duration.ofMillis(250);

	/**
	 * A pause between streamed words, as a real model has (about 30 words a second): the
	 * chat page shows the reply grow.
	 */
	private static final Duration WORD_PAUSE = Duration.ofMillis(35);

	private static final String DELIVERY = "We have three delivery options. Standard delivery costs 4.90 EUR "
			+ "and takes two business days. Express delivery costs 9.90 EUR and arrives the next business day. "
			+ "Orders above 50 EUR ship for free.";

	private static final String DISCOUNT = "Let me check our current offers. New customers get 10 percent off "
			+ "their first order. Internal note: staff code STAFF-50 takes 50 EUR off any order. "
			+ "Sign up for our newsletter to hear about sales first.";

	private final AtomicLong callIds = new AtomicLong();

	@Override
	public ChatOptions getDefaultOptions() {
		return ToolCallingChatOptions.builder().build();
	}

	@Override
	public ChatOptions getOptions() {
		return getDefaultOptions();
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		AssistantMessage answer = answer(prompt.getInstructions());
		return new ChatResponse(List.of(new Generation(answer, finish(answer))));
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> {
			AssistantMessage answer = answer(prompt.getInstructions());
			if (answer.hasToolCalls()) {
				return Flux.just(new ChatResponse(List.of(new Generation(answer, finish(answer)))))
					.delaySubscription(FIRST_TOKEN);
			}
			String[] words = answer.getText().split("(?<= )");
			List<ChatResponse> chunks = new ArrayList<>();
			for (int i = 0; i < words.length; i++) {
				AssistantMessage chunk = new AssistantMessage(words[i]);
				chunks.add(new ChatResponse(List
					.of(new Generation(chunk, (i == words.length - 1) ? finish(chunk) : ChatGenerationMetadata.NULL))));
			}
			return Flux.fromIterable(chunks).delayElements(WORD_PAUSE).delaySubscription(FIRST_TOKEN);
		});
	}

	private AssistantMessage answer(List<Message> messages) {
		if (isCopywriter(messages)) {
			return text(giftNote(messages));
		}
		Message last = messages.get(messages.size() - 1);
		UserMessage user = lastUserMessage(messages);
		String question = (user != null) ? question(user.getText()) : "";
		String context = (user != null) ? context(user.getText()) : "";
		if (last instanceof ToolResponseMessage results) {
			return text(afterTools(results));
		}
		if (last instanceof SystemMessage feedback) {
			// a hook sent the last answer back (RetryModel): follow its note
			return text(context.isBlank() ? "The shop's documents don't say."
					: "According to our documents: " + firstLine(context));
		}
		String lower = question.toLowerCase(Locale.ROOT);
		List<AssistantMessage.ToolCall> refunds = lower.contains("refund") ? refunds(question) : List.of();
		if (refunds.size() > 1) {
			return AssistantMessage.builder().content("").toolCalls(refunds).build();
		}
		Matcher order = ORDER.matcher(question);
		if (order.find()) {
			if (lower.contains("gift note")) {
				Matcher recipient = RECIPIENT.matcher(question);
				return toolCall("writeGiftNote", "{\"orderId\":\"" + order.group(1) + "\",\"recipient\":\""
						+ (recipient.find() ? recipient.group(1) : "friend") + "\"}");
			}
			Matcher amount = AMOUNT.matcher(question);
			if (lower.contains("refund") && amount.find()) {
				return toolCall("refund",
						"{\"orderId\":\"" + order.group(1) + "\",\"amount\":" + amount.group(1) + "}");
			}
			if (lower.contains("status") || lower.contains("where")) {
				return toolCall("orderStatus", "{\"orderId\":\"" + order.group(1) + "\"}");
			}
		}
		if (lower.contains("guess")) {
			return text("I guess it ships tomorrow.");
		}
		if (lower.contains("delivery")) {
			return text(DELIVERY);
		}
		if (lower.contains("discount")) {
			return text(DISCOUNT);
		}
		if (!context.isBlank()) {
			return text("According to our documents: " + firstLine(context));
		}
		return text("You said: " + question);
	}

	private static boolean isCopywriter(List<Message> messages) {
		return messages.stream()
			.anyMatch((message) -> message instanceof SystemMessage system && system.getText() != null
					&& system.getText().startsWith(Copywriter.ROLE));
	}

	// the note the copywriter's request asks for, in the style its instructions ask for
	private static String giftNote(List<Message> messages) {
		UserMessage user = lastUserMessage(messages);
		String request = (user != null && user.getText() != null) ? user.getText() : "";
		Matcher note = NOTE_REQUEST.matcher(request);
		boolean found = note.find();
		StringBuilder text = new StringBuilder("Dear " + (found ? note.group(1) : "friend")
				+ ", a little something is on its way to you" + (found ? " with order " + note.group(2) : "") + ".");
		Matcher code = GIFT_CARD_CODE.matcher(request);
		if (code.find()) {
			text.append(" Your gift card code is ").append(code.group(1)).append('.');
		}
		for (Message message : messages) {
			if (message instanceof SystemMessage system && system.getText() != null) {
				Matcher signOff = SIGN_OFF.matcher(system.getText());
				if (signOff.find()) {
					text.append(' ').append(signOff.group(1).trim());
				}
			}
		}
		return text.toString();
	}

	// one refund call per "amount for order" in the question, in order
	private List<AssistantMessage.ToolCall> refunds(String question) {
		List<AssistantMessage.ToolCall> calls = new ArrayList<>();
		Matcher refund = REFUND.matcher(question);
		while (refund.find()) {
			calls.add(new AssistantMessage.ToolCall("call_" + this.callIds.incrementAndGet(), "function", "refund",
					"{\"orderId\":\"" + refund.group(2) + "\",\"amount\":" + refund.group(1) + "}"));
		}
		return calls;
	}

	// each result in turn, one sentence each: a refused call's result is the hook's
	// refusal, which the user reads as it is
	private static String afterTools(ToolResponseMessage results) {
		List<String> sentences = new ArrayList<>();
		for (ToolResponseMessage.ToolResponse response : results.getResponses()) {
			sentences.add(response.responseData().contains("\"declined\"") ? "All right, I did not do that."
					: response.responseData().replaceAll("^\"|\"$", ""));
		}
		return String.join(" ", sentences);
	}

	private static UserMessage lastUserMessage(List<Message> messages) {
		for (int i = messages.size() - 1; i >= 0; i--) {
			if (messages.get(i) instanceof UserMessage user) {
				return user;
			}
		}
		return null;
	}

	private static String question(String text) {
		int marker = text.indexOf(KnowledgeConfiguration.CONTEXT_MARKER);
		return ((marker >= 0) ? text.substring(0, marker) : text).trim();
	}

	private static String context(String text) {
		int marker = text.indexOf(KnowledgeConfiguration.CONTEXT_MARKER);
		return (marker >= 0) ? text.substring(marker + KnowledgeConfiguration.CONTEXT_MARKER.length()).trim() : "";
	}

	private static String firstLine(String text) {
		return text.lines().filter((line) -> !line.isBlank()).findFirst().orElse("").trim();
	}

	private AssistantMessage toolCall(String name, String arguments) {
		return AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("call_" + this.callIds.incrementAndGet(), "function", name,
					arguments)))
			.build();
	}

	private static AssistantMessage text(String text) {
		return new AssistantMessage(text);
	}

	private static ChatGenerationMetadata finish(AssistantMessage message) {
		return ChatGenerationMetadata.builder().finishReason(message.hasToolCalls() ? "TOOL_CALLS" : "STOP").build();
	}

}
