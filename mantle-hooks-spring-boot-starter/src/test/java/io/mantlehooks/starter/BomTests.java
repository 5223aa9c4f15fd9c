package io.mantlehooks.starter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The BOM cannot rot: {@code mantle-hooks-bom} manages every published module of the
 * reactor (each module of the parent that is deployed, which the sample is not) and
 * nothing else, at the project's version, and has no parent, so importing it imports no
 * Spring Boot dependency management. Its publishing metadata is the parent's.
 */
class BomTests {

	private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

	private final Element parent = read(ROOT.resolve("pom.xml"));

	private final Element bom = read(ROOT.resolve("mantle-hooks-bom/pom.xml"));

	@Test
	void listsEveryPublishedModuleAtTheProjectVersion() {
		List<String> published = new ArrayList<>();
		for (String module : texts(this.parent, "modules", "module")) {
			Element pom = read(ROOT.resolve(module).resolve("pom.xml"));
			if (!module.equals("mantle-hooks-bom") && !"true".equals(text(pom, "properties", "maven.deploy.skip"))) {
				published.add(text(pom, "artifactId"));
			}
		}
		assertThat(published).contains("mantle-hooks-spring-boot-starter", "mantle-hooks-test")
			.doesNotContain("sample-app");
		assertThat(children(child(this.parent, "dependencyManagement"), "dependencies", "dependency"))
			.filteredOn((dependency) -> "io.mantlehooks".equals(text(dependency, "groupId")))
			.extracting((dependency) -> text(dependency, "artifactId"))
			.as("the parent manages the same modules")
			.containsExactlyInAnyOrderElementsOf(published);
		List<Element> managed = children(child(this.bom, "dependencyManagement"), "dependencies", "dependency");
		assertThat(managed).extracting((dependency) -> text(dependency, "artifactId"))
			.containsExactlyInAnyOrderElementsOf(published);
		assertThat(managed).allSatisfy((dependency) -> {
			assertThat(text(dependency, "groupId")).isEqualTo("io.mantlehooks");
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			assertThat(text(dependency, "scope")).isNull();
			assertThat(text(dependency, "type")).isNull();
		});
	}

	@Test
	void hasTheParentsCoordinatesAndNoParent() {
		assertThat(child(this.bom, "parent")).as("a parent would be imported with the BOM").isNull();
		assertThat(child(this.bom, "dependencies")).isNull();
		assertThat(text(this.bom, "groupId")).isEqualTo(text(this.parent, "groupId"));
		assertThat(text(this.bom, "version")).isEqualTo(text(this.parent, "version"));
		assertThat(text(this.bom, "packaging")).isEqualTo("pom");
	}

	@Test
	void hasTheParentsPublishingMetadata() {
		assertThat(text(this.bom, "url")).isEqualTo(text(this.parent, "url"));
		assertThat(text(this.bom, "licenses", "license", "url"))
			.isEqualTo(text(this.parent, "licenses", "license", "url"));
		assertThat(text(this.bom, "developers", "developer", "name"))
			.isEqualTo(text(this.parent, "developers", "developer", "name"));
		for (String element : List.of("connection", "developerConnection", "url")) {
			assertThat(text(this.bom, "scm", element)).isEqualTo(text(this.parent, "scm", element));
		}
	}

	private static Element read(Path pom) {
		assertThat(pom).exists();
		try (var in = Files.newInputStream(pom)) {
			return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in).getDocumentElement();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot read " + pom, ex);
		}
	}

	private static String text(Element element, String... path) {
		Element found = element;
		for (int i = 0; i < path.length && found != null; i++) {
			found = child(found, path[i]);
		}
		return (found != null) ? found.getTextContent().trim() : null;
	}

	private static List<String> texts(Element element, String list, String item) {
		return children(element, list, item).stream().map((found) -> found.getTextContent().trim()).toList();
	}

	private static List<Element> children(Element element, String list, String item) {
		Element container = (element != null) ? child(element, list) : null;
		List<Element> found = new ArrayList<>();
		if (container != null) {
			for (Node node = container.getFirstChild(); node != null; node = node.getNextSibling()) {
				if (node instanceof Element candidate && candidate.getTagName().equals(item)) {
					found.add(candidate);
				}
			}
		}
		return found;
	}

	private static Element child(Element element, String name) {
		for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element candidate && candidate.getTagName().equals(name)) {
				return candidate;
			}
		}
		return null;
	}

}
