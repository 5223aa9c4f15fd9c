package io.mantlehooks.console;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.util.ClassUtils;

/**
 * Reads the CSRF token that Spring Security's {@code CsrfFilter} put on the request, so
 * the console page can send it with its Approve and Deny {@code POST}s. Applications
 * without Spring Security have none, and the page sends nothing.
 */
final class CsrfTokens {

	private static final boolean SPRING_SECURITY_PRESENT = ClassUtils
		.isPresent("org.springframework.security.web.csrf.CsrfToken", CsrfTokens.class.getClassLoader());

	private CsrfTokens() {
	}

	/**
	 * Return the request's CSRF token. Reading it makes Spring Security generate and save
	 * a deferred token, so an application that keeps tokens in a cookie sets that cookie
	 * with the page.
	 * @param request the page request
	 * @return the token, or {@code null} without Spring Security or its CSRF protection
	 */
	static @Nullable Token of(HttpServletRequest request) {
		return SPRING_SECURITY_PRESENT ? SpringSecurity.read(request) : null;
	}

	/**
	 * The header the token goes in and its value.
	 *
	 * @param header the header name, e.g. {@code X-CSRF-TOKEN}
	 * @param value the token as the request handler rendered it
	 */
	record Token(String header, String value) {

	}

	/** Kept apart so that only this class needs Spring Security on the class path. */
	private static final class SpringSecurity {

		static @Nullable Token read(HttpServletRequest request) {
			if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
				return new Token(token.getHeaderName(), token.getToken());
			}
			return null;
		}

	}

}
