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
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;

/**
 * The token in a readable {@code XSRF-TOKEN} cookie with Spring Security's default
 * request handler, which expects the masked token the page carries, not the cookie's raw
 * value.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@Import(CookieCsrfConsoleBrowserTests.Security.class)
class CookieCsrfConsoleBrowserTests extends SecuredConsoleBrowserTests {

	@TestConfiguration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Security {

		@Bean
		SecurityFilterChain console(HttpSecurity http) {
			return operatorsOnly(http,
					(csrf) -> csrf.csrfTokenRepository(CookieCsrfTokenRepository.withHttpOnlyFalse()));
		}

		@Bean
		UserDetailsService users() {
			return operator();
		}

	}

}
