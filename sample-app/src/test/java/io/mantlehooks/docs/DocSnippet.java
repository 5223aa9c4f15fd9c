package io.mantlehooks.docs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ```java} block of a Markdown page, and the compilation unit javac gets for
 * it (see {@link DocSnippets} for the kinds).
 *
 * @param page the page, relative to the project root, with {@code /} separators
 * @param line the line of the opening fence, from 1
 * @param kind what the block holds
 * @param given declarations the block uses and does not show, from its marker comment
 * @param code the lines between the fences, without the block's indentation
 */
record DocSnippet(String page, int line, Kind kind, List<String> given, List<String> code) {

	private static final Pattern PUBLIC_TYPE = Pattern.compile(
			"^public\\s+(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)");

	private static final Pattern HEADER_LINE = Pattern.compile("^\\s*(?:$|import\\s|//)");

	/**
	 * The compilation unit of this block.
	 * @return its source text, its file name and, per line, the page's line
	 */
	Source source() {
		Source.Builder source = new Source.Builder();
		if (this.kind == Kind.COMPILATION_UNIT) {
			addCode(source, 0, this.code.size());
			source.addAll(this.given, this.line - 1);
			return source.build(fileName());
		}
		// a fragment: its leading imports stay on top, the rest goes into a class
		int header = 0;
		while (header < this.code.size() && HEADER_LINE.matcher(this.code.get(header)).find()) {
			header++;
		}
		addCode(source, 0, header);
		source.add("class " + className() + " {", this.line);
		source.addAll(this.given, this.line - 1);
		if (this.kind == Kind.STATEMENTS) {
			source.add("void snippet() throws Exception {", this.line);
		}
		addCode(source, header, this.code.size());
		if (this.kind == Kind.STATEMENTS) {
			source.add("}", this.line + this.code.size() + 1);
		}
		source.add("}", this.line + this.code.size() + 1);
		return source.build(className() + ".java");
	}

	private void addCode(Source.Builder source, int from, int to) {
		for (int index = from; index < to; index++) {
			source.add(this.code.get(index), this.line + 1 + index);
		}
	}

	private String fileName() {
		for (String codeLine : this.code) {
			Matcher type = PUBLIC_TYPE.matcher(codeLine);
			if (type.find()) {
				return type.group(1) + ".java";
			}
		}
		return className() + ".java";
	}

	private String className() {
		return "SnippetAtLine" + this.line;
	}

	/**
	 * What a block holds, as its marker comment says.
	 */
	enum Kind {

		/** A whole source file; a block without a marker. */
		COMPILATION_UNIT("compilation-unit"),

		/** Imports, then members of a class. */
		MEMBERS("members"),

		/** Imports, then statements of a method body. */
		STATEMENTS("statements");

		private final String marker;

		Kind(String marker) {
			this.marker = marker;
		}

		String marker() {
			return this.marker;
		}

	}

	/**
	 * The source javac compiles for a block.
	 *
	 * @param fileName the file name, after the public type when there is one
	 * @param lines the source lines
	 * @param pageLines for each source line, the page's line it comes from
	 */
	record Source(String fileName, List<String> lines, List<Integer> pageLines) {

		String text() {
			return String.join("\n", this.lines) + "\n";
		}

		/**
		 * The page's line of a source line.
		 * @param sourceLine the line in the source, from 1
		 * @return the line on the page, from 1
		 */
		int pageLine(long sourceLine) {
			int index = (int) Math.min(Math.max(sourceLine, 1), this.lines.size()) - 1;
			return this.pageLines.get(index);
		}

		/**
		 * A source line's text.
		 * @param sourceLine the line in the source, from 1
		 * @return its text, or an empty string when there is no such line
		 */
		String line(long sourceLine) {
			return (sourceLine >= 1 && sourceLine <= this.lines.size()) ? this.lines.get((int) sourceLine - 1) : "";
		}

		static final class Builder {

			private final List<String> lines = new ArrayList<>();

			private final List<Integer> pageLines = new ArrayList<>();

			void add(String line, int pageLine) {
				this.lines.add(line);
				this.pageLines.add(pageLine);
			}

			void addAll(List<String> lines, int pageLine) {
				lines.forEach((line) -> add(line, pageLine));
			}

			Source build(String fileName) {
				return new Source(fileName, Collections.unmodifiableList(this.lines),
						Collections.unmodifiableList(this.pageLines));
			}

		}

	}

}
