package io.mantlehooks.sample;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Spring Security's default CSRF protection: the token lives in the session and the page
 * sends it as rendered for the request.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@Import(SessionCsrfConsoleBrowserTests.Security.class)
class SessionCsrfConsoleBrowserTests extends SecuredConsoleBrowserTests {

	@TestConfiguration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Security {

		@Bean
		SecurityFilterChain console(HttpSecurity http) {
			return operatorsOnly(http, Customizer.withDefaults());
		}

		@Bean
		UserDetailsService users() {
			return operator();
		}

	}

}
