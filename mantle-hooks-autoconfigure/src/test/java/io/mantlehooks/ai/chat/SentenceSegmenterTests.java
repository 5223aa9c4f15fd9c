package io.mantlehooks.ai.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Segments as a streamed reply's outgoing-text hook sees them: whole sentences, in order,
 * nothing lost, whatever the chunking.
 */
class SentenceSegmenterTests {

	@Test
	void sentencesAreCutAtTheirEndsWithTheirTrailingSpace() {
		assertThat(segments("Refunds take 5 days. Shipping is free! Anything else?", 400))
			.containsExactly("Refunds take 5 days. ", "Shipping is free! ", "Anything else?");
	}

	@Test
	void abbreviationsDecimalsUrlsAndMailAddressesDoNotEndASentence() {
		String text = "Dr. Smith said e.g. this costs 3.5 EUR. Mail a.b@c.com or see https://x.org/a.b?c=1 now. Done.";
		assertThat(segments(text, 400)).containsExactly("Dr. Smith said e.g. this costs 3.5 EUR. ",
				"Mail a.b@c.com or see https://x.org/a.b?c=1 now. ", "Done.");
	}

	@Test
	void ideographicFullStopsEndSentencesWithoutSpaces() {
		assertThat(segments("你好。今天天气很好！再见。", 400)).containsExactly("你好。", "今天天气很好！", "再见。");
	}

	@Test
	void emojiStayWhole() {
		assertThat(segments("It works 👍🏽. Next one 🎉. End", 400)).containsExactly("It works 👍🏽. ", "Next one 🎉. ",
				"End");
	}

	@Test
	void aSentenceIsCutOnceWhitespaceFollowsItsEnd() {
		SentenceSegmenter segmenter = new SentenceSegmenter(Locale.ENGLISH, 400);
		assertThat(segmenter.add("It costs 3.")).isEmpty();
		// the sentence is complete: it goes out without waiting for the next one
		assertThat(segmenter.add("5 EUR. ")).containsExactly("It costs 3.5 EUR. ");
		assertThat(segmenter.add("Pay")).isEmpty();
		assertThat(segmenter.add(" e.g. ")).isEmpty();
		assertThat(segmenter.add("now.")).isEmpty();
		assertThat(segmenter.finish()).isEqualTo("Pay e.g. now.");
		assertThat(segmenter.finish()).isNull();
	}

	@Test
	void aLongTextWithoutPunctuationIsCutAtWhitespaceNearTheMaximum() {
		String word = "lorem ";
		String text = word.repeat(5_000 / word.length()) + "end";
		List<String> segments = segments(text, 400);
		assertThat(String.join("", segments)).isEqualTo(text);
		assertThat(segments).hasSizeGreaterThan(10);
		assertThat(segments.subList(0, segments.size() - 1)).allSatisfy((segment) -> {
			assertThat(segment.length()).isLessThanOrEqualTo(400).isGreaterThan(390);
			assertThat(segment).endsWith(" ");
		});
	}

	@Test
	void aTextWithoutAnyWhitespaceIsCutAtTheMaximumNeverInsideACharacter() {
		String text = "👍🏽".repeat(300);
		List<String> segments = segments(text, 401);
		assertThat(String.join("", segments)).isEqualTo(text);
		assertThat(segments).allSatisfy((segment) -> {
			assertThat(segment.length() % 4).isZero();
			assertThat(segment.length()).isLessThanOrEqualTo(401);
		});
	}

	@Test
	void everyChunkingGivesTheSameSegments() {
		String text = "Dr. Who paid 3.50 EUR. Really? Yes! 你好。 Mail me at a@b.org. Bye.";
		List<String> whole = segments(text, 400);
		for (int size = 1; size <= 7; size++) {
			SentenceSegmenter segmenter = new SentenceSegmenter(Locale.ENGLISH, 400);
			List<String> chunked = new ArrayList<>();
			for (int i = 0; i < text.length(); i += size) {
				chunked.addAll(segmenter.add(text.substring(i, Math.min(text.length(), i + size))));
			}
			String last = segmenter.finish();
			if (last != null) {
				chunked.add(last);
			}
			assertThat(chunked).as("chunks of %d", size).isEqualTo(whole);
		}
	}

	@Test
	void nothingInNothingOut() {
		SentenceSegmenter segmenter = new SentenceSegmenter(Locale.ENGLISH, 400);
		assertThat(segmenter.add(null)).isEmpty();
		assertThat(segmenter.add("")).isEmpty();
		assertThat(segmenter.finish()).isNull();
	}

	@Test
	void aMaximumLengthMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new SentenceSegmenter(Locale.ENGLISH, 0))
			.withMessage("'maxLength' must be positive");
	}

	private static List<String> segments(String text, int maxLength) {
		SentenceSegmenter segmenter = new SentenceSegmenter(Locale.ENGLISH, maxLength);
		List<String> segments = new ArrayList<>(segmenter.add(text));
		String last = segmenter.finish();
		if (last != null) {
			segments.add(last);
		}
		return segments;
	}

}
