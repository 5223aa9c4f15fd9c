package io.mantlehooks.ai.chat;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.mantlehooks.MantleHooks;
import io.mantlehooks.ai.chat.OutgoingTextStage.Reply;
import io.mantlehooks.ai.turn.Step;
import io.mantlehooks.ai.turn.Steps;
import io.mantlehooks.ai.turn.Turn;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.context.i18n.LocaleContextHolder;

/**
 * One streamed reply that an outgoing-text hook rewrites sentence by sentence. Each
 * round's text is cut into segments as it arrives; only the segment being completed is
 * held back, each completed segment passes the hook in order and goes out at once,
 * rewritten. A rejected segment ends the reply: the model's stream is cancelled and the
 * rejection's reply goes out as the last chunk, marked {@link MantleHooks#RETRACTED}, so
 * the client replaces everything it showed. A crashed or late hook sends the segment as
 * it was (the point fails open) and the next segment is hooked again.
 * <p>
 * Segments are numbered across the rounds of a turn; the segment that ends a round
 * without tool calls is the final one. The rounds run one after another, and within a
 * round the segments are produced in order by one {@code concatMap}, so the counters need
 * no more than visibility between the threads that take turns.
 */
final class SegmentedReply {

	private final OutgoingTextStage outgoing;

	private final Turn turn;

	private final ChatClientRequest request;

	private final Executor executor;

	private final Locale locale;

	private final int maxLength;

	private volatile int next;

	private volatile @Nullable Reply rejection;

	SegmentedReply(OutgoingTextStage outgoing, Turn turn, ChatClientRequest request, Executor executor, Locale locale,
			int maxLength) {
		this.outgoing = outgoing;
		this.turn = turn;
		this.request = request;
		this.executor = executor;
		this.locale = locale;
		this.maxLength = maxLength;
	}

	/**
	 * Return a round's text chunks as the user receives them: one chunk per completed
	 * segment, after the hook. The last one is built from the round's last chunk (which
	 * carries its finish reason and usage) and holds whatever was still held back.
	 * @param chunks the round's text chunks
	 * @param ends whether the round ends the reply, asked once its chunks are complete
	 * @return the segments; a retraction is the last element, and the model's stream is
	 * cancelled when it is emitted
	 */
	Flux<ChatClientResponse> round(Flux<ChatClientResponse> chunks, BooleanSupplier ends) {
		SentenceSegmenter segmenter = new SentenceSegmenter(this.locale, this.maxLength);
		AtomicReference<@Nullable ChatClientResponse> last = new AtomicReference<>();
		return chunks.concatMap((chunk) -> {
			last.set(chunk);
			List<String> completed = segmenter.add(ChatResponses.text(chunk.chatResponse()));
			// most chunks complete no sentence, and hardly any completes two
			return switch (completed.size()) {
				case 0 -> Flux.empty();
				case 1 -> hooked(chunk, completed.get(0), false);
				default -> Flux.fromIterable(completed).concatMap((text) -> hooked(chunk, text, false));
			};
		}).concatWith(Flux.defer(() -> {
			ChatClientResponse template = last.get();
			String rest = segmenter.finish();
			if (template == null) {
				return Flux.empty();
			}
			if (rest == null) {
				// the round's last chunk still carries its finish reason and usage
				return Flux.just(withText(template, ""));
			}
			return hooked(template, rest, ends.getAsBoolean());
		})).takeUntil(SegmentedReply::isRetraction);
	}

	/**
	 * Pass a reply the engine wrote (a fallback, the approval question) through the hook
	 * as the reply's final segment.
	 */
	Step<Reply> engineReply(String text) {
		return this.outgoing.segment(this.turn, text, this.next++, true);
	}

	/**
	 * Return the response that replaces everything streamed before it: the rejection's
	 * reply (empty when that was rejected too), with the rejection's outcome.
	 */
	ChatClientResponse retraction(ChatClientResponse template, Reply reply) {
		String text = (reply.text() != null) ? reply.text() : "";
		return TurnContexts.withOutcome(retractionOf(template, text), reply.outcome());
	}

	/**
	 * A chunk whose text replaces the reply so far. It is marked in its response's
	 * metadata as well as in its context: Spring AI's memory advisors give every chunk
	 * after it the context of all chunks before, so only the response says which chunk
	 * the retraction is.
	 */
	private ChatClientResponse retractionOf(ChatClientResponse template, String text) {
		ChatResponse response = ChatResponse.builder()
			.from(ChatResponses.textResponse(this.request, text).chatResponse())
			.metadata(MantleHooks.RETRACTED, Boolean.TRUE)
			.build();
		Map<String, @Nullable Object> context = new HashMap<>(template.context());
		context.put(MantleHooks.RETRACTED, Boolean.TRUE);
		return new ChatClientResponse(response, context);
	}

	/**
	 * Return the response that takes back what a tool round streamed, when its batch did
	 * not run: its text is what the user had before the round, and the turn goes on.
	 */
	ChatClientResponse discarding(ChatClientResponse template, String kept) {
		return retractionOf(template, kept);
	}

	private Flux<ChatClientResponse> hooked(ChatClientResponse chunk, String text, boolean ends) {
		int segment = this.next++;
		return Steps.mono(this.outgoing.segment(this.turn, text, segment, ends), this.executor).map((reply) -> {
			if (reply.outcome() != null) {
				this.rejection = reply;
				return retraction(chunk, reply);
			}
			return withText(chunk, (reply.text() != null) ? reply.text() : text);
		}).flux();
	}

	/**
	 * Return the chunk with the segment's text. A chunk without a generation (the usage
	 * chunk some providers end with) gets one, keeping its metadata.
	 */
	private static ChatClientResponse withText(ChatClientResponse chunk, String text) {
		if (ChatResponses.output(chunk.chatResponse()) == null) {
			return ChatResponses.withGenerations(chunk, List.of(new Generation(new AssistantMessage(text))));
		}
		return ChatResponses.withText(chunk, text);
	}

	/**
	 * Return the rejection that ended the reply, else {@code null}.
	 */
	@Nullable Reply rejection() {
		return this.rejection;
	}

	static boolean isRetraction(ChatClientResponse chunk) {
		ChatResponse response = chunk.chatResponse();
		return response != null && Boolean.TRUE.equals(response.getMetadata().get(MantleHooks.RETRACTED));
	}

	/**
	 * Return the locale whose sentence rules cut the reply: Spring's current locale (a
	 * web request's) where there is one, the JVM's default otherwise.
	 */
	static Locale currentLocale() {
		return LocaleContextHolder.getLocale();
	}

}
