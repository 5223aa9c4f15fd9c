package io.mantlehooks.console;

import org.junit.jupiter.api.Test;

import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.DefaultCsrfToken;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The console page hands Spring Security's CSRF token to its script, escaped, and never
 * lets it be cached; without Spring Security's token it hands over nothing. (The sample's
 * browser tests prove Approve works behind Spring Security.)
 */
class ConsolePageTests {

	private final MockMvc mvc = MockMvcBuilders
		.routerFunctions(ConsolePage.routes("/mantle-console", "/actuator/mantlehooks"))
		.build();

	@Test
	void thePageCarriesTheRequestsCsrfTokenEscaped() throws Exception {
		CsrfToken token = new DefaultCsrfToken("X-CSRF-TOKEN", "_csrf", "a\"b<c>");
		this.mvc.perform(get("/mantle-console").requestAttr(CsrfToken.class.getName(), token))
			.andExpect(status().isOk())
			.andExpect(header().string("Cache-Control", containsString("no-store")))
			.andExpect(content()
				.string(containsString("data-csrf-header=\"X-CSRF-TOKEN\" data-csrf-token=\"a&quot;b&lt;c&gt;\"")));
	}

	@Test
	void withoutSpringSecuritysTokenThePageCarriesNone() throws Exception {
		this.mvc.perform(get("/mantle-console/"))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("data-csrf-header=\"\" data-csrf-token=\"\"")))
			.andExpect(content().string(not(containsString("@@"))));
	}

	@Test
	void anotherObjectUnderTheAttributeNameIsIgnored() throws Exception {
		this.mvc.perform(get("/mantle-console").requestAttr(CsrfToken.class.getName(), "not a token"))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("data-csrf-header=\"\" data-csrf-token=\"\"")));
	}

}
