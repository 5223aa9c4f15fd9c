package io.mantlehooks.autoconfigure;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a decision ({@code POST /actuator/mantlehooks/approvals/{id}}) whose
 * {@code approve} is not a JSON boolean, before Actuator reads it. Actuator binds a web
 * operation's body to text values, so {@code "true"}, {@code 1} and {@code true} arrive
 * alike, and its conversion would read {@code "yes"} or {@code "on"} as {@code true}: a
 * decision that runs a refund is never guessed. An {@code approve} in the query string is
 * refused too (Actuator lets it override the body's). The answer is a 400 with a JSON
 * body that says what is wrong, whatever {@code server.error.include-message} says. Only
 * active while decisions are on; the endpoint's own check is the fallback.
 */
final class DecisionRequestFilter extends OncePerRequestFilter {

	/** The 400's message. */
	static final String NOT_A_BOOLEAN = "'approve' must be a JSON boolean (true or false)";

	/** A decision is two small values; anything larger is not one. */
	private static final int MAX_BODY = 16 * 1024;

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final Supplier<@Nullable String> approvalsPath;

	/**
	 * Create the filter.
	 * @param approvalsPath the path of the decisions within the servlet, e.g.
	 * {@code /actuator/mantlehooks/approvals/}, {@code null} while decisions are off
	 */
	DecisionRequestFilter(Supplier<@Nullable String> approvalsPath) {
		this.approvalsPath = approvalsPath;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		if (!"POST".equals(request.getMethod())) {
			return true;
		}
		String prefix = this.approvalsPath.get();
		String path = (request.getPathInfo() != null) ? request.getPathInfo() : request.getServletPath();
		return prefix == null || path == null || !path.startsWith(prefix);
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		boolean approveInQuery;
		try {
			approveInQuery = approveInQuery(request.getQueryString());
		}
		catch (IllegalArgumentException ex) {
			// a malformed escape such as %=1 would otherwise fail the request with a 500
			refuse(request, response, "The query string of a decision is not valid URL encoding");
			return;
		}
		if (approveInQuery) {
			refuse(request, response, NOT_A_BOOLEAN + " in the JSON body, not a query parameter");
			return;
		}
		byte[] body = request.getInputStream().readNBytes(MAX_BODY + 1);
		if (body.length > MAX_BODY) {
			refuse(request, response, "A decision's body must be at most " + MAX_BODY + " bytes");
			return;
		}
		String problem = problem(body);
		if (problem != null) {
			refuse(request, response, problem);
			return;
		}
		chain.doFilter(new ReadAgain(request, body), response);
	}

	/**
	 * Return what is wrong with the body's {@code approve}, {@code null} when it is a
	 * JSON boolean or absent (Actuator answers 400 for a missing one) or the body is no
	 * JSON object (Actuator refuses it).
	 */
	private static @Nullable String problem(byte[] body) {
		JsonNode tree;
		try {
			tree = JSON.readTree(body);
		}
		catch (JacksonException ex) {
			return null;
		}
		JsonNode approve = (tree != null && tree.isObject()) ? tree.get("approve") : null;
		if (approve == null || approve.isBoolean()) {
			return null;
		}
		return NOT_A_BOOLEAN + ", not " + kind(approve);
	}

	private static String kind(JsonNode value) {
		if (value.isString()) {
			return "a string";
		}
		if (value.isNumber()) {
			return "a number";
		}
		if (value.isNull()) {
			return "null";
		}
		return value.isArray() ? "an array" : "an object";
	}

	/**
	 * Whether the query names {@code approve}.
	 * @throws IllegalArgumentException when a name is not valid URL encoding
	 */
	private static boolean approveInQuery(@Nullable String query) {
		return query != null && Arrays.stream(query.split("&"))
			.map((pair) -> URLDecoder.decode(pair.split("=", 2)[0], StandardCharsets.UTF_8))
			.anyMatch("approve"::equals);
	}

	private static void refuse(HttpServletRequest request, HttpServletResponse response, String message)
			throws IOException {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", HttpServletResponse.SC_BAD_REQUEST);
		body.put("error", "Bad Request");
		body.put("message", message);
		body.put("path", request.getRequestURI());
		response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.getOutputStream().write(JSON.writeValueAsBytes(body));
	}

	/** The request with its body, already read here, to be read again by Actuator. */
	private static final class ReadAgain extends HttpServletRequestWrapper {

		private final byte[] body;

		ReadAgain(HttpServletRequest request, byte[] body) {
			super(request);
			this.body = body;
		}

		@Override
		public ServletInputStream getInputStream() {
			ByteArrayInputStream in = new ByteArrayInputStream(this.body);
			return new ServletInputStream() {

				@Override
				public int read() {
					return in.read();
				}

				@Override
				public int read(byte[] buffer, int offset, int length) {
					return in.read(buffer, offset, length);
				}

				@Override
				public boolean isFinished() {
					return in.available() == 0;
				}

				@Override
				public boolean isReady() {
					return true;
				}

				@Override
				public void setReadListener(ReadListener listener) {
					throw new UnsupportedOperationException("the body was read already");
				}

			};
		}

		@Override
		public BufferedReader getReader() {
			String encoding = getCharacterEncoding();
			return new BufferedReader(new InputStreamReader(getInputStream(),
					(encoding != null) ? Charset.forName(encoding) : StandardCharsets.UTF_8));
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

	}

}
