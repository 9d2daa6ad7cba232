package io.fleetwave.simulator.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * The agent image's JVM options, read from their one home: the {@code <jvmFlags>} of Jib's plugin
 * in node-agent/pom.xml, which Jib writes into the image's entrypoint. The footprint bench starts
 * the agent (and its empty-JVM baseline) with exactly these, so that what it measures is what a
 * node runs; it keeps no copy of its own.
 */
final class AgentImageFlags {
  private static final String JIB_FLAGS =
      "/project/build/plugins/plugin[artifactId='jib-maven-plugin']"
          + "/configuration/container/jvmFlags/jvmFlag";

  private AgentImageFlags() {}

  /** The flags of node-agent/pom.xml, found from the repository root or one of its modules. */
  static List<String> fromRepository() throws IOException {
    for (Path candidate :
        List.of(Path.of("node-agent/pom.xml"), Path.of("../node-agent/pom.xml"))) {
      if (Files.isRegularFile(candidate)) {
        return of(candidate);
      }
    }
    throw new IllegalStateException(
        "node-agent/pom.xml not found from "
            + Path.of("").toAbsolutePath()
            + ": run the bench from the repository root or a module directory, or pass"
            + " --jvm-flags");
  }

  /** The Jib plugin's container jvmFlags in the given pom, in order. */
  static List<String> of(Path pom) throws IOException {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      Document document = factory.newDocumentBuilder().parse(pom.toFile());
      NodeList nodes =
          (NodeList)
              XPathFactory.newInstance()
                  .newXPath()
                  .evaluate(JIB_FLAGS, document, XPathConstants.NODESET);
      List<String> flags = new ArrayList<>();
      for (int i = 0; i < nodes.getLength(); i++) {
        flags.add(nodes.item(i).getTextContent().strip());
      }
      if (flags.isEmpty()) {
        throw new IllegalStateException(
            pom + " has no <jvmFlag> in jib-maven-plugin's <configuration><container><jvmFlags>");
      }
      return List.copyOf(flags);
    } catch (javax.xml.parsers.ParserConfigurationException
        | org.xml.sax.SAXException
        | javax.xml.xpath.XPathExpressionException e) {
      throw new IllegalStateException("cannot read the JVM flags of " + pom + ": " + e, e);
    }
  }
}
