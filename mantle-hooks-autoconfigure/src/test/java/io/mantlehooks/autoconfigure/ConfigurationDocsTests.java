package io.mantlehooks.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration.md} against the configuration metadata the build generates
 * (spring-boot-configuration-processor's, with
 * {@code additional-spring-configuration-metadata.json} merged in). The page's tables
 * have a row for every live {@code mantle.hooks.*} key, deprecated ones included, with
 * the metadata's default where it has one, and no row for anything else; a map-valued key
 * is written with a placeholder for its map keys ({@code mantle.hooks.responses.<name>}),
 * any other key without one. A key the metadata marks as removed (deprecation level
 * {@code error}) is not live: the page may name it in its text (the list of removed
 * keys), never in a table row. Every other {@code mantle.hooks.*} name in the page's text
 * is a key of the metadata, live or removed.
 */
class ConfigurationDocsTests {

	private static final Path PAGE = Path.of("../docs/configuration.md");

	private static final String PAGE_NAME = "docs/configuration.md";

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private static final String PREFIX = MantleHooksProperties.CONFIG_PREFIX + ".";

	private static final Pattern ROW_KEY = Pattern.compile("^`(mantle\\.hooks\\.[^`]+)`$");

	private static final Pattern NAMED_KEY = Pattern.compile("`(mantle\\.hooks\\.[^`]+)`");

	/**
	 * A key up to its first placeholder ({@code <name>}, {@code "[bean.method]"},
	 * {@code *}).
	 */
	private static final Pattern KEY_NAME = Pattern.compile("^[a-z0-9.-]*[a-z0-9]");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void thePageHasARowForEveryKeyOfTheMetadataAndForNoOther() throws IOException {
		Map<String, Key> keys = metadata();
		// the merged metadata: a key of the processor's and one of the additional file
		assertThat(keys).containsKey("mantle.hooks.enabled");
		assertThat(keys.get("mantle.hooks.executor.spin-wait")).extracting(Key::removed).isEqualTo(true);
		List<String> problems = problems(Files.readAllLines(PAGE, StandardCharsets.UTF_8), keys);
		assertThat(problems)
			.withFailMessage("%s is out of date with the configuration metadata:%n%s", PAGE_NAME,
					String.join("\n", problems))
			.isEmpty();
	}

	@Test
	void aMissingKeyAStaleKeyAWrongDefaultAndAnUnknownNameAreReported() throws IOException {
		List<String> page = List.of("| key | default | meaning |", "| --- | --- | --- |",
				"| `mantle.hooks.max-iterations` | `12` | Model calls per turn. |",
				"| `mantle.hooks.executor.spin-wait` | — | How long a turn spun. |",
				"| `mantle.hooks.responses` | packaged texts | Named replies. |",
				"| `mantle.hooks.timeouts.observe.<point>` | — | Observe timeout per point. |", "",
				"Turns end after `mantle.hooks.max-iteration` model calls.");
		assertThat(problems(page, metadata())).contains(
				"docs/configuration.md:3: the default of mantle.hooks.max-iterations is `10`, not `12`",
				"docs/configuration.md:4: mantle.hooks.executor.spin-wait is removed (deprecation level error): "
						+ "name it in the text, not in a table",
				"docs/configuration.md:5: mantle.hooks.responses is a map: write it with a placeholder for its keys, "
						+ "as in `mantle.hooks.responses.<name>`",
				"docs/configuration.md:6: mantle.hooks.timeouts.observe is not a map: write it without a placeholder",
				"docs/configuration.md:8: mantle.hooks.max-iteration is no key of the configuration metadata",
				"docs/configuration.md: no row for mantle.hooks.enabled (default `true`): "
						+ "Whether hook methods are discovered and wired into chat turns.");
	}

	/**
	 * What is wrong with the page, one entry per problem.
	 * @param page the page's lines
	 * @param keys the metadata's {@code mantle.hooks.*} keys
	 * @return the problems, with the page's line where there is one
	 */
	private static List<String> problems(List<String> page, Map<String, Key> keys) {
		List<String> problems = new ArrayList<>();
		Map<String, Integer> rows = new LinkedHashMap<>();
		boolean code = false;
		for (int index = 0; index < page.size(); index++) {
			String line = page.get(index);
			String at = PAGE_NAME + ":" + (index + 1) + ": ";
			if (line.strip().startsWith("```")) {
				code = !code;
				continue;
			}
			if (code) {
				continue;
			}
			String[] cells = line.strip().startsWith("|") ? line.strip().split("\\|") : new String[0];
			Matcher row = (cells.length > 2) ? ROW_KEY.matcher(cells[1].strip()) : null;
			if (row != null && row.matches()) {
				String written = row.group(1);
				String name = name(written);
				if (rows.putIfAbsent(name, index + 1) != null) {
					problems.add(at + name + " has a second row");
				}
				problems.addAll(rowProblems(at, written, name, cells[2].strip(), keys.get(name)));
				continue;
			}
			Matcher named = NAMED_KEY.matcher(line);
			while (named.find()) {
				if (!keys.containsKey(name(named.group(1)))) {
					problems.add(at + name(named.group(1)) + " is no key of the configuration metadata");
				}
			}
		}
		keys.values()
			.stream()
			.filter((key) -> !key.removed() && !rows.containsKey(key.name()))
			.forEach((key) -> problems.add(PAGE_NAME + ": no row for " + key.name()
					+ ((key.defaultValue() != null) ? " (default `" + key.defaultValue() + "`)" : "") + ": "
					+ key.description()));
		return problems;
	}

	private static List<String> rowProblems(String at, String written, String name, String documentedDefault,
			@Nullable Key key) {
		if (key == null) {
			return List.of(at + name + " is no key of the configuration metadata: remove the row or correct it");
		}
		if (key.removed()) {
			return List.of(at + name + " is removed (deprecation level error): name it in the text, not in a table");
		}
		List<String> problems = new ArrayList<>();
		boolean placeholder = !written.equals(name);
		if (key.map() && !placeholder) {
			problems
				.add(at + name + " is a map: write it with a placeholder for its keys, as in `" + name + ".<name>`");
		}
		if (!key.map() && placeholder) {
			problems.add(at + name + " is not a map: write it without a placeholder");
		}
		if (key.defaultValue() != null && !documentedDefault.equals("`" + key.defaultValue() + "`")) {
			problems.add(at + "the default of " + name + " is `" + key.defaultValue() + "`, not " + documentedDefault);
		}
		return problems;
	}

	private static String name(String written) {
		Matcher name = KEY_NAME.matcher(written);
		return name.find() ? name.group() : written;
	}

	/**
	 * The {@code mantle.hooks.*} keys of the configuration metadata on the class path.
	 * @return the keys by name
	 * @throws IOException if the metadata cannot be read
	 */
	private static Map<String, Key> metadata() throws IOException {
		Map<String, Key> keys = new TreeMap<>();
		for (URL resource : Collections.list(ConfigurationDocsTests.class.getClassLoader().getResources(METADATA))) {
			JsonNode metadata;
			try (InputStream in = resource.openStream()) {
				metadata = JSON.readTree(in);
			}
			for (JsonNode property : metadata.path("properties")) {
				String name = property.path("name").asString();
				if (name.startsWith(PREFIX)) {
					JsonNode defaultValue = property.path("defaultValue");
					keys.put(name,
							new Key(name, property.path("type").asString("").startsWith("java.util.Map<"),
									defaultValue.isValueNode() ? defaultValue.asString() : null,
									property.path("deprecation").path("level").asString("").equals("error"),
									property.path("description").asString("")));
				}
			}
		}
		return keys;
	}

	/**
	 * A key of the configuration metadata.
	 *
	 * @param name its name
	 * @param map whether its value is a map (the key goes on with the map's keys)
	 * @param defaultValue its default as the metadata writes it, if it has one
	 * @param removed whether it is deprecated with level {@code error}: no longer a key
	 * @param description its description
	 */
	private record Key(String name, boolean map, @Nullable String defaultValue, boolean removed, String description) {

	}

}
