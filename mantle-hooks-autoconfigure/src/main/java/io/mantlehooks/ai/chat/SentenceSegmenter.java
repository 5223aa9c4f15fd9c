package io.mantlehooks.ai.chat;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Cuts a reply that arrives chunk by chunk into segments that end at sentence ends, for
 * outgoing-text hooks that rewrite a stream sentence by sentence. It holds back only the
 * segment being completed; the segments, concatenated, are exactly the text that came in
 * (whitespace after a sentence stays with it).
 * <p>
 * Sentence ends come from {@link BreakIterator} for the turn's locale, with three
 * corrections: a cut needs whitespace after the terminator, or an ideographic one
 * ({@code 。！？}), so URLs and {@code a.b?c=1} stay whole; a cut after a common
 * abbreviation ("Dr.", "e.g.") is not one; and a cut is only made once the next sentence
 * has begun, since the chunk that ends in "3." may be followed by "5" (or, when what
 * arrived ends in whitespace after it, as if one had begun). A text with no sentence end
 * is cut at a whitespace once it reaches the maximum length, and, with no whitespace at
 * all, at the maximum length itself (never inside a character). Not thread-safe: one per
 * streamed reply, fed in order.
 */
final class SentenceSegmenter {

	/** Abbreviations after which a full stop does not end a sentence (lower case). */
	private static final Set<String> ABBREVIATIONS = Set.of("dr.", "mr.", "mrs.", "ms.", "prof.", "sr.", "jr.", "st.",
			"vs.", "e.g.", "i.e.", "inc.", "ltd.", "no.", "fig.", "approx.", "dept.", "mt.");

	private final BreakIterator sentences;

	private final int maxLength;

	private final StringBuilder pending = new StringBuilder();

	SentenceSegmenter(Locale locale, int maxLength) {
		Assert.notNull(locale, "'locale' must not be null");
		Assert.isTrue(maxLength > 0, "'maxLength' must be positive");
		this.sentences = BreakIterator.getSentenceInstance(locale);
		this.maxLength = maxLength;
	}

	/**
	 * Add the next piece of the reply.
	 * @param text the piece
	 * @return the segments it completed, in order; often none
	 */
	List<String> add(@Nullable String text) {
		if (text == null || text.isEmpty()) {
			return List.of();
		}
		this.pending.append(text);
		List<String> segments = List.of();
		int cut;
		while ((cut = nextCut()) > 0) {
			if (segments.isEmpty()) {
				segments = new ArrayList<>(1);
			}
			segments.add(this.pending.substring(0, cut));
			this.pending.delete(0, cut);
		}
		return segments;
	}

	/**
	 * The reply is complete: return what is held back.
	 * @return the final segment, {@code null} when nothing is held back
	 */
	@Nullable String finish() {
		if (this.pending.isEmpty()) {
			return null;
		}
		String last = this.pending.toString();
		this.pending.setLength(0);
		return last;
	}

	/**
	 * The end of the first complete segment of what is held back, or {@code 0} when there
	 * is none yet.
	 */
	private int nextCut() {
		String text = this.pending.toString();
		this.sentences.setText(text);
		for (int end = this.sentences.next(); end != BreakIterator.DONE
				&& end < text.length(); end = this.sentences.next()) {
			if (end > this.maxLength) {
				break;
			}
			if (endsSentence(text, end)) {
				return end;
			}
		}
		if (text.length() > this.maxLength) {
			return lengthCut(text);
		}
		return endsComplete(text) ? text.length() : 0;
	}

	/**
	 * Whether what arrived ends with a complete sentence: a terminator and whitespace at
	 * its very end. The iterator decides a break by what follows it, so the next sentence
	 * is assumed to begin as most do, with a capital; waiting for it would hold a
	 * finished sentence back for one more chunk. (After an ideographic terminator,
	 * whitespace may still follow and belongs to the sentence, so that one waits.)
	 */
	private boolean endsComplete(String text) {
		if (text.isEmpty() || !Character.isWhitespace(text.charAt(text.length() - 1))) {
			return false;
		}
		String probe = text + "A";
		this.sentences.setText(probe);
		return this.sentences.isBoundary(text.length()) && endsSentence(probe, text.length());
	}

	/**
	 * Whether a break the iterator found (the next sentence starts at {@code end}, which
	 * is not the end of what arrived) really ends a sentence.
	 */
	private static boolean endsSentence(String text, int end) {
		char before = text.charAt(end - 1);
		if (isIdeographicTerminator(before)) {
			return true;
		}
		if (!Character.isWhitespace(before)) {
			return false;
		}
		return !endsWithAbbreviation(text, end);
	}

	private static boolean isIdeographicTerminator(char c) {
		return c == '。' || c == '！' || c == '？' || c == '｡';
	}

	private static boolean endsWithAbbreviation(String text, int end) {
		int last = end;
		while (last > 0 && Character.isWhitespace(text.charAt(last - 1))) {
			last--;
		}
		int first = last;
		while (first > 0 && !Character.isWhitespace(text.charAt(first - 1))) {
			first--;
		}
		String word = text.substring(first, last).toLowerCase(Locale.ROOT);
		while (!word.isEmpty() && (word.charAt(0) == '(' || word.charAt(0) == '"' || word.charAt(0) == '\'')) {
			word = word.substring(1);
		}
		return ABBREVIATIONS.contains(word);
	}

	/**
	 * A cut for a text that reached the maximum length without a sentence end: after the
	 * last whitespace run within the maximum, else at the maximum.
	 */
	private int lengthCut(String text) {
		for (int i = this.maxLength; i > 0; i--) {
			if (Character.isWhitespace(text.charAt(i - 1)) && !Character.isWhitespace(text.charAt(i))) {
				return i;
			}
		}
		// no whitespace at all: at the maximum, but never inside a character (a surrogate
		// pair, an emoji with its modifier)
		BreakIterator characters = BreakIterator.getCharacterInstance();
		characters.setText(text);
		int cut = characters.isBoundary(this.maxLength) ? this.maxLength : characters.preceding(this.maxLength);
		return (cut > 0) ? cut : characters.following(this.maxLength);
	}

}
