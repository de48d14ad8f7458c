package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * baton-client's pom says what Maven Central requires of a published one (itself or through its
 * parent): name, description, url, licenses, scm, developers, and a release version in the README's
 * dependency snippet. The build's staging deploy (parent pom) proves the jars deploy.
 */
class PublishedPomTest {

  private static Document read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  private static String text(Document pom, String element) {
    var nodes = pom.getDocumentElement().getElementsByTagName(element);
    return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
  }

  @Test
  void thePomCarriesWhatMavenCentralRequires() throws Exception {
    Document client = read(Path.of("pom.xml"));
    Document parent = read(Path.of("..", "pom.xml"));

    assertThat(text(client, "name")).isNotBlank();
    assertThat(text(client, "description")).isNotBlank();
    assertThat(text(parent, "url")).startsWith("https://");
    assertThat(text(parent, "licenses")).contains("Apache-2.0");
    assertThat(text(parent, "developers")).isNotBlank();
    assertThat(text(parent, "scm")).contains("scm:git:");
    assertThat(Path.of("..", "LICENSE")).isRegularFile();
  }

  @Test
  void theReadmeNamesTheVersionTheBuildMakes() throws Exception {
    String version = text(read(Path.of("..", "pom.xml")), "version");
    String readme = Files.readString(Path.of("..", "README.md"));

    assertThat(version).as("a release version").doesNotEndWith("-SNAPSHOT");
    assertThat(readme)
        .contains("<artifactId>baton-client</artifactId>")
        .contains("<version>" + version + "</version>");
  }
}
