package io.mantlehooks.sample;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.SecurityFilterChain;

/**
 * CSRF protection for single-page applications ({@code csrf.spa()}): the token lives in a
 * readable {@code XSRF-TOKEN} cookie and the page sends its raw value in
 * {@code X-XSRF-TOKEN}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@Import(SpaCsrfConsoleBrowserTests.Security.class)
class SpaCsrfConsoleBrowserTests extends SecuredConsoleBrowserTests {

	@TestConfiguration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Security {

		@Bean
		SecurityFilterChain console(HttpSecurity http) {
			return operatorsOnly(http, (csrf) -> csrf.spa());
		}

		@Bean
		UserDetailsService users() {
			return operator();
		}

	}

}
