package io.mantlehooks.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```java} block of the README and of {@code docs/} compiles against the
 * starter, the test kit and the libraries an application has ({@link DocSnippets} says
 * how fragments are marked); the checker itself names the page and line of a block that
 * does not.
 */
class DocsSnippetsTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final String HOW = "A ```java block is a whole compilation unit unless a comment on the line "
			+ "before it says <!-- snippet: members --> or <!-- snippet: statements --> (see DocSnippets)";

	@TempDir
	Path directory;

	@Test
	void everyJavaBlockOfTheReadmeAndTheDocsCompiles() throws IOException {
		assertThat(ROOT.resolve("docs")).isDirectory();
		DocSnippets.Report report = DocSnippets.compile(ROOT, DocSnippets.pages(ROOT), this.directory);
		assertThat(report.snippets()).extracting(DocSnippet::page).contains("README.md", "docs/testing.md");
		assertThat(report.problems())
			.withFailMessage("%s errors in the Java blocks of the README and docs/:%n%s%n%s", report.problems().size(),
					String.join("\n", report.problems()), HOW)
			.isEmpty();
	}

	@Test
	void aBlockThatNoLongerCompilesIsReportedWithItsPageLineAndMessage() throws IOException {
		Path page = page("""
				# Hooks

				```java
				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;

				class CoolDown {

				    @ModifyModelRequst
				    ModelRequestPayload coolDown(ModelRequestPayload request) {
				        return request;
				    }

				}
				```
				""");
		assertThat(compile(page)).singleElement()
			.satisfies((problem) -> assertThat(problem).startsWith("docs/page.md:9: cannot find symbol")
				.contains("class ModifyModelRequst")
				.endsWith("@ModifyModelRequst"));
	}

	@Test
	void membersAndStatementsCompileInAClassWithTheBlocksImportsAndTheGivenNames() throws IOException {
		Path page = page("""
				<!-- snippet: members; given: Pattern AMOUNTS; -->
				```java
				import java.util.regex.*;

				import io.mantlehooks.*;
				import io.mantlehooks.annotation.*;

				@ModifyOutgoingText
				OutgoingTextPayload euros(OutgoingTextPayload text) {
				    return text.withText(AMOUNTS.matcher(text.text()).replaceAll("EUR $1"));
				}
				```

				- A list item:

				  <!-- snippet: statements; given: ChatClient.Builder builder; -->
				  ```java
				  import io.mantlehooks.*;
				  import org.springframework.ai.chat.client.*;

				  String reply = builder.build().prompt().user("Hi")
				      .advisors(MantleHooks.agent("support")).call().content();
				  ```
				""");
		assertThat(compile(page)).isEmpty();
	}

	@Test
	void aFragmentWithoutAMarkerIsReportedAsItDoesNotCompile() throws IOException {
		Path page = page("""
				```java
				@ModifyToolCall
				ToolCallPayload refundLimit(ToolCallPayload call) {
				    return call;
				}
				```
				""");
		assertThat(compile(page)).isNotEmpty().allSatisfy((problem) -> assertThat(problem).startsWith("docs/page.md:"));
	}

	@Test
	void aMarkerThatCannotBeUsedIsReported() throws IOException {
		Path page = page("""
				<!-- snippet: fragment -->
				```java
				class A {
				}
				```

				<!-- snippet: members -->

				```java
				class B {
				}
				```
				""");
		assertThat(compile(page)).containsExactly(
				"docs/page.md:1: unknown snippet kind 'fragment'; use compilation-unit, members or statements",
				"docs/page.md:7: a snippet comment must be on the line before a ```java block");
	}

	private Path page(String markdown) throws IOException {
		Path page = this.directory.resolve("project/docs/page.md");
		Files.createDirectories(page.getParent());
		return Files.writeString(page, markdown);
	}

	private List<String> compile(Path page) throws IOException {
		return DocSnippets.compile(this.directory.resolve("project"), List.of(page), this.directory.resolve("out"))
			.problems();
	}

}
