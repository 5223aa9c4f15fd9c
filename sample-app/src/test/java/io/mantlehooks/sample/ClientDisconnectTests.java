package io.mantlehooks.sample;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.mantlehooks.TurnStatus;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A chat page that goes away in the middle of a streamed reply (a closed tab, a lost
 * connection) is normal: the turn ends as cancelled, the model stops, the log says so in
 * one DEBUG line at most, and the transcript claims no text reached the client: what went
 * out is kept as a discarded entry.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
class ClientDisconnectTests {

	@LocalServerPort
	private int port;

	@Autowired
	private TranscriptStore transcript;

	@Test
	void aClientThatGoesAwayMidStreamCancelsTheTurnQuietly(CapturedOutput output) throws Exception {
		String conversation = "c-" + UUID.randomUUID().toString().substring(0, 8);
		// the demo model echoes it a word every 20 ms: about four seconds of reply
		String message = IntStream.range(0, 200).mapToObj((i) -> "Word" + i + ".").collect(Collectors.joining(" "));
		HttpResponse<InputStream> response = HttpClient.newHttpClient()
			.send(ShopScenarioTests.streamRequest(this.port, conversation, message),
					HttpResponse.BodyHandlers.ofInputStream());
		String first;
		try (InputStream body = response.body()) {
			BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
			first = reader.readLine();
			while (first != null && !first.startsWith("data:")) {
				first = reader.readLine();
			}
		}
		assertThat(first).as("the first token arrived").isNotNull();
		// the turn ends cancelled, long before the model would have finished
		await().atMost(Duration.ofSeconds(60)).until(() -> output.getOut().contains("finished: "));
		assertThat(output.getOut()).contains("finished: " + TurnStatus.CANCELLED)
			.doesNotContain("finished: " + TurnStatus.COMPLETED);
		// what went out before the client left is kept, set aside: nobody knows how much
		// of it arrived
		TranscriptEntry reply = reply(conversation);
		assertThat(reply.discarded()).isTrue();
		assertThat(reply.outcome()).isEqualTo("cancelled");
		assertThat(message).startsWith(reply.text().replace("You said: ", ""));
		assertThat(reply.text()).doesNotContain("Word199");
		assertThat(output.getOut() + output.getErr()).doesNotContain("Request failed")
			.doesNotContain("No converter")
			.doesNotContain("\tat ");
	}

	@Test
	void aClientThatGoesAwayBeforeTheFirstByteLeavesNoReplyInTheConversation() throws Exception {
		String conversation = "c-" + UUID.randomUUID().toString().substring(0, 8);
		String message = IntStream.range(0, 200).mapToObj((i) -> "Word" + i + ".").collect(Collectors.joining(" "));
		byte[] body = ("{\"conversationId\":\"" + conversation + "\",\"message\":\"" + message + "\"}")
			.getBytes(StandardCharsets.UTF_8);
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), this.port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("POST /api/chat/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
					+ "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.write(body);
			out.flush();
			// gone without reading a byte
		}
		TranscriptEntry reply = reply(conversation);
		assertThat(reply.discarded()).isTrue();
		assertThat(reply.outcome()).isEqualTo("cancelled");
		assertThat(reply.text()).doesNotContain("Word199");
		assertThat(this.transcript.find(conversation))
			.filteredOn((entry) -> entry.role() == TranscriptRole.ASSISTANT && !entry.discarded())
			.isEmpty();
	}

	/** The reply's transcript entry, once the turn wrote it. */
	private TranscriptEntry reply(String conversation) {
		await().atMost(Duration.ofSeconds(60))
			.until(() -> this.transcript.find(conversation)
				.stream()
				.anyMatch((entry) -> entry.role() == TranscriptRole.ASSISTANT));
		return this.transcript.find(conversation)
			.stream()
			.filter((entry) -> entry.role() == TranscriptRole.ASSISTANT)
			.reduce((first, second) -> second)
			.orElseThrow();
	}

}
