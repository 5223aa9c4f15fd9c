package io.mantlehooks.sample;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A limit on the size of a chat API request's body: a message is at most 2,000
 * characters, so a body of many megabytes is never a chat message, and the API should not
 * read it. A declared length over the limit gets 413 before anything is read; a body sent
 * in chunks stops being read at the limit ({@link ErrorReplies} answers 413 then too).
 */
@Configuration(proxyBeanMethods = false)
class BodySizeLimit {

	/** Enough for the longest message, escaped, and the other fields. */
	static final int MAX_BYTES = 32 * 1024;

	@Bean
	FilterRegistrationBean<LimitFilter> bodySizeLimitFilter() {
		FilterRegistrationBean<LimitFilter> registration = new FilterRegistrationBean<>(new LimitFilter());
		registration.addUrlPatterns("/api/*");
		return registration;
	}

	static String tooLarge() {
		return "The body must be at most " + MAX_BYTES + " bytes";
	}

	static final class LimitFilter extends OncePerRequestFilter {

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			if (request.getContentLengthLong() > MAX_BYTES) {
				response.setStatus(HttpStatus.CONTENT_TOO_LARGE.value());
				response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
				response.getWriter()
					.write("{\"status\":413,\"title\":\"Content Too Large\",\"detail\":\"" + tooLarge() + "\"}");
				return;
			}
			chain.doFilter(new LimitedRequest(request), response);
		}

	}

	/**
	 * A body that grew past the limit while it was read.
	 */
	static final class BodyTooLargeException extends IOException {

		private static final long serialVersionUID = 1L;

		BodyTooLargeException() {
			super(tooLarge());
		}

	}

	private static final class LimitedRequest extends HttpServletRequestWrapper {

		private ServletInputStream limited;

		LimitedRequest(HttpServletRequest request) {
			super(request);
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.limited == null) {
				this.limited = new LimitedInputStream(super.getInputStream());
			}
			return this.limited;
		}

	}

	private static final class LimitedInputStream extends ServletInputStream {

		private final ServletInputStream body;

		private long read;

		LimitedInputStream(ServletInputStream body) {
			this.body = body;
		}

		@Override
		public int read() throws IOException {
			int next = this.body.read();
			if (next >= 0) {
				count(1);
			}
			return next;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int count = this.body.read(buffer, offset, length);
			if (count > 0) {
				count(count);
			}
			return count;
		}

		private void count(int bytes) throws BodyTooLargeException {
			this.read += bytes;
			if (this.read > MAX_BYTES) {
				throw new BodyTooLargeException();
			}
		}

		@Override
		public boolean isFinished() {
			return this.body.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.body.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.body.setReadListener(listener);
		}

	}

}
