package io.mantlehooks.sample;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;

/**
 * An embedding model that needs no download and no network: each word (longer than three
 * letters, plural "s" dropped) is hashed into one of 512 dimensions and the vector is
 * normalized, so texts that share words are similar. A text with no such word ("hi",
 * "yes", "42") is a 513th dimension alone, which no document shares: it finds nothing,
 * where an all-zero vector would make the vector store fail. Good enough to search a
 * handful of documents; replace it with a real embedding model for real content.
 */
class KeywordEmbeddingModel implements EmbeddingModel {

	/** The dimensions words hash into. */
	private static final int WORD_DIMENSIONS = 512;

	/** One more, of texts without a keyword. */
	private static final int NO_KEYWORD = WORD_DIMENSIONS;

	private static final int DIMENSIONS = WORD_DIMENSIONS + 1;

	@Override
	public EmbeddingResponse call(EmbeddingRequest request) {
		List<Embedding> embeddings = new ArrayList<>();
		List<String> texts = request.getInstructions();
		for (int i = 0; i < texts.size(); i++) {
			embeddings.add(new Embedding(vector(texts.get(i)), i));
		}
		return new EmbeddingResponse(embeddings);
	}

	@Override
	public float[] embed(Document document) {
		return vector(document.getText());
	}

	@Override
	public int dimensions() {
		return DIMENSIONS;
	}

	private static float[] vector(String text) {
		float[] vector = new float[DIMENSIONS];
		for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
			if (word.length() > 3) {
				String stem = word.endsWith("s") ? word.substring(0, word.length() - 1) : word;
				CRC32 crc = new CRC32();
				crc.update(stem.getBytes(StandardCharsets.UTF_8));
				vector[(int) (crc.getValue() % WORD_DIMENSIONS)] += 1;
			}
		}
		double norm = 0;
		for (float value : vector) {
			norm += value * value;
		}
		if (norm == 0) {
			vector[NO_KEYWORD] = 1;
			return vector;
		}
		for (int i = 0; i < vector.length; i++) {
			vector[i] /= (float) Math.sqrt(norm);
		}
		return vector;
	}

}
