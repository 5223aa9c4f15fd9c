package io.mantlehooks.ai;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;

/**
 * A deterministic embedding model for tests: one dimension per keyword, counting its
 * occurrences, so similar texts are near and every search can be counted.
 */
public class KeywordEmbeddingModel implements EmbeddingModel {

	private static final List<String> KEYWORDS = List.of("refund", "shipping", "ticket", "days", "warranty", "policy");

	final AtomicInteger calls = new AtomicInteger();

	@Override
	public EmbeddingResponse call(EmbeddingRequest request) {
		this.calls.incrementAndGet();
		List<String> inputs = request.getInstructions();
		return new EmbeddingResponse(
				IntStream.range(0, inputs.size()).mapToObj((i) -> new Embedding(vector(inputs.get(i)), i)).toList());
	}

	@Override
	public float[] embed(Document document) {
		return vector(document.getText());
	}

	@Override
	public int dimensions() {
		return KEYWORDS.size() + 1;
	}

	private static float[] vector(String text) {
		String lower = text.toLowerCase(Locale.ROOT);
		float[] vector = new float[KEYWORDS.size() + 1];
		for (int i = 0; i < KEYWORDS.size(); i++) {
			vector[i] = lower.split(KEYWORDS.get(i), -1).length - 1;
		}
		vector[KEYWORDS.size()] = 0.1f;
		return vector;
	}

}
