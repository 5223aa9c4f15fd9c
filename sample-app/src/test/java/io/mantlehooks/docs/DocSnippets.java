package io.mantlehooks.docs;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import io.mantlehooks.docs.DocSnippet.Kind;

/**
 * The {@code ```java} blocks of the README and of every page under {@code docs/},
 * compiled with javac against the test class path (the starter, the test kit, Spring AI's
 * OpenAI starter, Spring Security, the sample), so that a page whose Java no longer
 * compiles fails the build.
 * <p>
 * A block is a whole compilation unit unless an HTML comment on the line before its fence
 * (invisible on the rendered page) says otherwise:
 * <ul>
 * <li>{@code <!-- snippet: members -->}: imports, then members of a class (a
 * {@code @Bean} method, a hook method, fields);</li>
 * <li>{@code <!-- snippet: statements -->}: imports, then the statements of a method
 * body.</li>
 * </ul>
 * After the kind, {@code given:} declares the names the block uses and does not show, as
 * members of that class ({@code <!-- snippet: statements; given: String text; -->}), or
 * as top-level types after a whole unit ({@code <!-- snippet: compilation-unit; given:
 * interface AuditHooks { ... } -->}); they see the block's imports and name any other
 * type fully qualified, so the block shows the reader every import its own code needs.
 * The blocks of a page compile together (a later block may use an earlier block's
 * classes, so their class names must differ); pages compile apart.
 */
final class DocSnippets {

	private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*(\\S*)");

	private static final Pattern MARKER = Pattern
		.compile("(?s)^\\s*<!--\\s*snippet:\\s*([a-z-]*)\\s*(?:;\\s*given:(.*?))?\\s*-->\\s*$");

	private DocSnippets() {
	}

	/**
	 * The Markdown pages whose blocks are compiled: {@code README.md} and
	 * {@code docs/**.md}.
	 * @param root the project root
	 * @return the pages, in a stable order
	 * @throws IOException if a directory cannot be read
	 */
	static List<Path> pages(Path root) throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(root.resolve("README.md"));
		try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/**
	 * Read the {@code ```java} blocks of a page and their marker comments.
	 * @param root the project root, which page names are relative to
	 * @param page the page
	 * @param problems where a marker that cannot be used is reported
	 * @return the blocks, in page order
	 * @throws IOException if the page cannot be read
	 */
	static List<DocSnippet> read(Path root, Path page, List<String> problems) throws IOException {
		String name = root.relativize(page).toString().replace('\\', '/');
		List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
		List<DocSnippet> snippets = new ArrayList<>();
		Marker marker = null;
		for (int index = 0; index < lines.size(); index++) {
			String line = lines.get(index);
			if (line.trim().startsWith("<!-- snippet:")) {
				int start = index;
				StringBuilder comment = new StringBuilder(line);
				while (!lines.get(index).contains("-->") && index + 1 < lines.size()) {
					comment.append('\n').append(lines.get(++index));
				}
				marker = Marker.parse(comment.toString(), name, start + 1, problems);
				if (index + 1 >= lines.size() || !isJavaFence(lines.get(index + 1))) {
					problems.add(name + ":" + (start + 1)
							+ ": a snippet comment must be on the line before a ```java block");
					marker = null;
				}
				continue;
			}
			Matcher fence = FENCE.matcher(line);
			if (!fence.find()) {
				continue;
			}
			int indent = fence.group(1).length();
			int open = index;
			List<String> code = new ArrayList<>();
			for (index++; index < lines.size() && !FENCE.matcher(lines.get(index)).find(); index++) {
				String codeLine = lines.get(index);
				code.add(codeLine.substring(Math.min(indent, codeLine.length() - codeLine.stripLeading().length())));
			}
			if (fence.group(2).equals("java")) {
				if (index >= lines.size()) {
					problems.add(name + ":" + (open + 1) + ": the ```java block is not closed");
				}
				Marker used = (marker != null) ? marker : Marker.NONE;
				snippets.add(new DocSnippet(name, open + 1, used.kind(), used.given(), code));
			}
			marker = null;
		}
		return snippets;
	}

	/**
	 * Compile the blocks of each page, a page at a time, and report every error with the
	 * page, its line and javac's message.
	 * @param root the project root
	 * @param pages the pages
	 * @param output a directory for sources and classes
	 * @return the blocks found and the problems, empty when every block compiles
	 * @throws IOException if a page cannot be read or a file written
	 */
	static Report compile(Path root, List<Path> pages, Path output) throws IOException {
		List<DocSnippet> snippets = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		try (StandardJavaFileManager files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
			for (int number = 0; number < pages.size(); number++) {
				List<DocSnippet> page = read(root, pages.get(number), problems);
				if (!page.isEmpty()) {
					compile(javac, files, page, output.resolve("page" + number), problems);
					snippets.addAll(page);
				}
			}
		}
		return new Report(snippets, problems);
	}

	private static void compile(JavaCompiler javac, StandardJavaFileManager files, List<DocSnippet> snippets,
			Path directory, List<String> problems) throws IOException {
		Path sources = Files.createDirectories(directory.resolve("src"));
		Path classes = Files.createDirectories(directory.resolve("classes"));
		Map<URI, DocSnippet.Source> byUri = new HashMap<>();
		List<Path> paths = new ArrayList<>();
		for (DocSnippet snippet : snippets) {
			DocSnippet.Source source = snippet.source();
			// a directory per block: equal file names of two blocks do not collide
			Path path = Files.createDirectories(sources.resolve("line" + snippet.line())).resolve(source.fileName());
			Files.writeString(path, source.text(), StandardCharsets.UTF_8);
			paths.add(path);
			byUri.put(path.toUri().normalize(), source);
		}
		List<String> options = List.of("-d", classes.toString(), "-sourcepath", sources.toString(), "-classpath",
				System.getProperty("java.class.path"), "--release", "17", "-proc:none", "-implicit:none", "-encoding",
				"UTF-8");
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(paths)).call();
		String page = snippets.get(0).page();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() != Diagnostic.Kind.ERROR) {
				continue;
			}
			DocSnippet.Source source = (diagnostic.getSource() != null)
					? byUri.get(diagnostic.getSource().toUri().normalize()) : null;
			if (source == null) {
				problems.add(page + ": " + diagnostic.getMessage(Locale.ROOT));
				continue;
			}
			long line = diagnostic.getLineNumber();
			problems.add(page + ":" + source.pageLine(line) + ": " + diagnostic.getMessage(Locale.ROOT) + "\n    "
					+ source.line(line).strip());
		}
	}

	private static boolean isJavaFence(String line) {
		Matcher fence = FENCE.matcher(line);
		return fence.find() && fence.group(2).equals("java");
	}

	/**
	 * The blocks found and what is wrong with them.
	 *
	 * @param snippets every {@code ```java} block of the pages
	 * @param problems one entry per error: page, line, message and the line's text
	 */
	record Report(List<DocSnippet> snippets, List<String> problems) {

	}

	/**
	 * A block's marker comment.
	 *
	 * @param kind what the block holds
	 * @param given declarations the block uses and does not show
	 */
	private record Marker(Kind kind, List<String> given) {

		static final Marker NONE = new Marker(Kind.COMPILATION_UNIT, List.of());

		static Marker parse(String comment, String page, int line, List<String> problems) {
			Matcher marker = MARKER.matcher(comment);
			if (!marker.matches()) {
				problems.add(page + ":" + line + ": cannot read the snippet comment " + comment.strip()
						+ "; write <!-- snippet: KIND --> or <!-- snippet: KIND; given: DECLARATIONS -->");
				return NONE;
			}
			for (Kind kind : Kind.values()) {
				if (kind.marker().equals(marker.group(1))) {
					String given = (marker.group(2) != null) ? marker.group(2).strip() : "";
					return new Marker(kind, given.isEmpty() ? List.of() : given.lines().toList());
				}
			}
			problems.add(page + ":" + line + ": unknown snippet kind '" + marker.group(1)
					+ "'; use compilation-unit, members or statements");
			return NONE;
		}

	}

}
