package io.mantlehooks.sample;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body that is not JSON is the client's mistake: the chat API answers 415 with the type
 * it reads, and the server logs no error and no stack trace for it.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
class ChatApiContentTypeTests {

	@LocalServerPort
	private int port;

	private RestClient http;

	@BeforeEach
	void setUp() {
		this.http = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + this.port)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
	}

	@Test
	void plainTextBodiesAreRefusedWith415AndNoErrorInTheLog(CapturedOutput output) {
		ResponseEntity<Map> chat = post("/api/chat", "Where is order 42?");
		ResponseEntity<Map> decision = post("/api/approvals/a-1", "yes");
		for (ResponseEntity<Map> refused : List.of(chat, decision)) {
			assertThat(refused.getStatusCode().value()).isEqualTo(415);
			assertThat(refused.getBody()).containsEntry("detail",
					"The body must be JSON (Content-Type: application/json)");
			assertThat(refused.getHeaders().getAccept()).contains(MediaType.APPLICATION_JSON);
		}
		// what the old catch-all logged: an ERROR "Request failed" with the exception's
		// stack trace (other threads of a shared test context may log, so only this
		// is checked)
		assertThat(output).doesNotContain("Request failed").doesNotContain("HttpMediaTypeNotSupportedException");
	}

	private ResponseEntity<Map> post(String path, String text) {
		return this.http.post()
			.uri(path)
			.header(HttpHeaders.CONTENT_TYPE, MediaType.TEXT_PLAIN_VALUE)
			.body(text)
			.retrieve()
			.toEntity(Map.class);
	}

}
