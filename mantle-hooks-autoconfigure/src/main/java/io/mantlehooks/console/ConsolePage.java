package io.mantlehooks.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * Serves the turn console: one static page with its script and style from the jar (no
 * front-end build, no CDN, nothing fetched from elsewhere). The page reads and writes
 * through the {@code mantlehooks} Actuator endpoint, so it is protected like Actuator.
 * When Spring Security protects against CSRF, the page carries the request's token (it is
 * never cached) for the script's {@code POST}s.
 */
public final class ConsolePage {

	private static final String RESOURCES = "io/mantlehooks/console/";

	/** Only this origin: no inline script, nothing from elsewhere. */
	private static final String CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; "
			+ "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

	private ConsolePage() {
	}

	/**
	 * Return the routes of the console.
	 * @param path the page's path, e.g. {@code /mantle-console}
	 * @param endpoint the endpoint's path, e.g. {@code /actuator/mantlehooks}
	 * @return the routes
	 */
	public static RouterFunction<ServerResponse> routes(String path, String endpoint) {
		String page = read("index.html");
		String script = read("console.js");
		String style = read("console.css");
		return RouterFunctions.route()
			.GET(path, (request) -> html(request, page, path, endpoint))
			.GET(path + "/", (request) -> html(request, page, path, endpoint))
			.GET(path + "/console.js", (request) -> asset(script, "text/javascript"))
			.GET(path + "/console.css", (request) -> asset(style, "text/css"))
			.build();
	}

	private static ServerResponse html(ServerRequest request, String page, String path, String endpoint) {
		String context = request.requestPath().contextPath().value();
		CsrfTokens.Token csrf = CsrfTokens.of(request.servletRequest());
		String body = page.replace("@@base@@", HtmlUtils.htmlEscape(context + path))
			.replace("@@endpoint@@", HtmlUtils.htmlEscape(context + endpoint))
			.replace("@@csrf-header@@", (csrf != null) ? HtmlUtils.htmlEscape(csrf.header()) : "")
			.replace("@@csrf-token@@", (csrf != null) ? HtmlUtils.htmlEscape(csrf.value()) : "");
		return ServerResponse.ok()
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.cacheControl(CacheControl.noStore())
			.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
			.header("X-Content-Type-Options", "nosniff")
			.header("Referrer-Policy", "no-referrer")
			.body(body);
	}

	private static ServerResponse asset(String body, String type) {
		return ServerResponse.ok()
			.contentType(new MediaType(MediaType.parseMediaType(type), StandardCharsets.UTF_8))
			.cacheControl(CacheControl.noCache())
			.header("X-Content-Type-Options", "nosniff")
			.body(body);
	}

	private static String read(String name) {
		try (InputStream in = new ClassPathResource(RESOURCES + name, ConsolePage.class.getClassLoader())
			.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The turn console's " + name + " is missing from the jar", ex);
		}
	}

}
