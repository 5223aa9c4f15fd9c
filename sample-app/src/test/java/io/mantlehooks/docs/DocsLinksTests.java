package io.mantlehooks.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the README, the changelog and {@code docs/} resolves: its file
 * exists and, when it names one, the heading it points at does (anchors as GitHub makes
 * them from headings). Links in code blocks and code spans are not links; links with a
 * scheme ({@code https:}) are not checked.
 */
class DocsLinksTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern LINK = Pattern.compile("(?<!!)\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");

	private static final Pattern SCHEME = Pattern.compile("^[a-z][a-z0-9+.-]*:");

	@TempDir
	Path directory;

	@Test
	void everyRelativeLinkOfTheReadmeAndTheDocsResolves() {
		List<Path> pages = pages(ROOT);
		assertThat(pages).contains(ROOT.resolve("README.md"), ROOT.resolve("docs/console.md"));
		List<String> broken = broken(ROOT, pages);
		assertThat(broken).withFailMessage("Broken links:%n%s", String.join("\n", broken)).isEmpty();
	}

	@Test
	void aMissingPageAndAMissingHeadingAreReportedWithTheirLine() throws IOException {
		Files.createDirectories(this.directory.resolve("docs"));
		Files.writeString(this.directory.resolve("README.md"), """
				# Guide

				See [the console](docs/console.md#securing-it), [setup](#set-up) and
				[gone](docs/gone.md). `[not a link](nowhere.md)`

				```
				[in a block](nowhere.md)
				```
				""");
		Files.writeString(this.directory.resolve("docs/console.md"), "# Turn console\n\n## Securing it\n");
		assertThat(broken(this.directory, pages(this.directory)))
			.containsExactly("README.md:3: no heading for #set-up in README.md", "README.md:4: no file docs/gone.md");
	}

	private static List<Path> pages(Path root) {
		List<Path> pages = new ArrayList<>();
		for (String name : List.of("README.md", "CHANGELOG.md")) {
			if (Files.isRegularFile(root.resolve(name))) {
				pages.add(root.resolve(name));
			}
		}
		Path docs = root.resolve("docs");
		if (Files.isDirectory(docs)) {
			try (Stream<Path> files = Files.walk(docs)) {
				files.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return pages;
	}

	private static List<String> broken(Path root, List<Path> pages) {
		Map<Path, Set<String>> anchors = new HashMap<>();
		List<String> broken = new ArrayList<>();
		for (Path page : pages) {
			List<String> lines = lines(page);
			boolean fenced = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.startsWith("```")) {
					fenced = !fenced;
					continue;
				}
				if (fenced) {
					continue;
				}
				Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
				while (link.find()) {
					String problem = problem(page, link.group(1), anchors);
					if (problem != null) {
						broken.add(root.relativize(page) + ":" + (i + 1) + ": " + problem);
					}
				}
			}
		}
		return broken;
	}

	private static @Nullable String problem(Path page, String target, Map<Path, Set<String>> anchors) {
		if (SCHEME.matcher(target).find()) {
			return null;
		}
		int hash = target.indexOf('#');
		String file = (hash >= 0) ? target.substring(0, hash) : target;
		String anchor = (hash >= 0) ? target.substring(hash + 1) : null;
		Path destination = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
		if (!Files.exists(destination)) {
			return "no file " + file;
		}
		if (anchor == null) {
			return null;
		}
		if (!destination.toString().endsWith(".md")) {
			return "a heading in " + file + ", which is not a page";
		}
		if (!anchors.computeIfAbsent(destination, DocsLinksTests::anchors).contains(anchor)) {
			return "no heading for #" + anchor + " in " + page.getParent().relativize(destination);
		}
		return null;
	}

	/**
	 * The anchors GitHub makes from a page's headings: lowercase, letters, digits,
	 * {@code -} and {@code _} kept, spaces as {@code -}, the rest dropped; a repeated
	 * heading gets {@code -1}, {@code -2}, ...
	 */
	private static Set<String> anchors(Path page) {
		Set<String> anchors = new HashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		boolean fenced = false;
		for (String line : lines(page)) {
			if (line.startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			Matcher heading = HEADING.matcher(line);
			if (!fenced && heading.matches()) {
				String slug = slug(heading.group(2));
				int count = seen.merge(slug, 1, Integer::sum) - 1;
				anchors.add((count == 0) ? slug : slug + "-" + count);
			}
		}
		return anchors;
	}

	private static String slug(String heading) {
		StringBuilder slug = new StringBuilder();
		String text = heading.replaceAll("<[^>]+>", "").strip().toLowerCase(Locale.ROOT);
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

	private static List<String> lines(Path page) {
		try {
			return Files.readAllLines(page);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
