package io.mantlehooks.runtime.discovery;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The compile-time index is read line by line on a cold JVM, and always to what
 * {@link Properties#load(java.io.InputStream)} would read: the processor's own form and
 * every form it does not write (read by {@code Properties} then).
 */
class IndexTextTests {

	@ParameterizedTest
	@ValueSource(strings = {
			// what mantle-hooks-processor writes
			"# comment\n# another\nmantle-hooks.source-checks.version=1\n"
					+ "demo.Hooks\\#screen(Lio/mantlehooks/IncomingMessagePayload;)Lio/mantlehooks/IncomingMessagePayload;.signals=io.mantlehooks.HookRejection\n"
					+ "demo.Hooks\\#screen(Lio/mantlehooks/IncomingMessagePayload;)Lio/mantlehooks/IncomingMessagePayload;.rejection-names=utter_read,other\n"
					+ "demo.Hooks.class-file=924,94626dee,1796165269562\n",
			// no line end at the end, blank lines, ! comments
			"a=1\n\n! bang comment\nb=2",
			// separators and escapes of the simple form
			"a=b=c\n=empty key\nempty.value=\nkey\\=with\\=equals=v\\=w\nback\\\\slash=x\\\\\n\\!bang=\\#hash",
			// a later key wins
			"a=1\na=2\n",
			// Latin-1 beyond ASCII
			"caf\u00e9=cr\u00e8me\n",
			// what Properties reads differently from a naive split: whitespace, colons,
			// other escapes, continued lines, CR line ends, keys without values
			"a = 1\n", "a:1\n", "  indented=1\n", "a\\ b=1\n", "tab\t=1\n", "a=\\u0041\\t\\n\n", "a=\\q\n",
			"a=continued\\\n    line\n", "a=1\r\nb=2\r\n", "a=1\rb=2", "lonely\n", "a=x\\\\\\\n  y\n",
			"# comment ending in a backslash \\\na=1\n", "\f=1\n", "" })
	void readsWhatPropertiesReads(String text) throws IOException {
		byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
		assertThat(IndexText.read(bytes)).isEqualTo(properties(bytes));
	}

	@ParameterizedTest
	@ValueSource(strings = { "a=\\u00zz\n", "a=\\u12" })
	void aMalformedUnicodeEscapeIsAnErrorAsInProperties(String text) {
		byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
		assertThatIllegalArgumentException().isThrownBy(() -> new Properties().load(new ByteArrayInputStream(bytes)));
		assertThatIllegalArgumentException().isThrownBy(() -> IndexText.read(bytes));
	}

	private static Map<String, String> properties(byte[] bytes) throws IOException {
		Properties properties = new Properties();
		properties.load(new ByteArrayInputStream(bytes));
		Map<String, String> entries = new HashMap<>();
		properties.stringPropertyNames().forEach((key) -> entries.put(key, properties.getProperty(key)));
		return entries;
	}

}
