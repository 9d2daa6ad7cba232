package io.fleetwave.events.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.junit.jupiter.api.Test;

class StrictYamlTest {
  static final class Fleet {
    @JsonProperty("nodes")
    List<Group> nodes;
  }

  static final class Group {
    @JsonProperty("name")
    String name;

    @JsonProperty("count")
    int count;
  }

  @Test
  void aKnownShapeIsBound() {
    Fleet fleet = StrictYaml.bind("nodes:\n  - name: a\n    count: 2\n", "fleet.yaml", Fleet.class);
    assertThat(fleet.nodes).singleElement().satisfies(g -> assertThat(g.count).isEqualTo(2));
  }

  @Test
  void anUnknownFieldIsRefusedWithTheSourceLinePathAndKnownFields() {
    assertThatThrownBy(
            () ->
                StrictYaml.bind(
                    "nodes:\n  - name: a\n    count: 2\n    gpu: 4\n", "fleet.yaml", Fleet.class))
        .isInstanceOfSatisfying(
            YamlException.class,
            e -> {
              assertThat(e.line()).isEqualTo(4);
              assertThat(e.key()).isEqualTo("gpu");
              assertThat(e.source()).isEqualTo("fleet.yaml");
            })
        .hasMessage(
            "fleet.yaml line 4: unknown field 'gpu' in nodes[0].gpu (known: [count, name])");
  }

  @Test
  void aDuplicateKeyAWrongTypeAndASecondDocumentAreRefused() {
    assertThatThrownBy(
            () -> StrictYaml.bind("nodes:\n  - name: a\n    name: b\n", "f", Fleet.class))
        .isInstanceOf(YamlException.class)
        .hasMessageStartingWith("f line 3: ")
        .hasMessageContaining("name");
    assertThatThrownBy(() -> StrictYaml.bind("nodes:\n  - count: many\n", "f", Fleet.class))
        .hasMessageStartingWith("f line 2: invalid value at nodes[0].count: ");
    assertThatThrownBy(() -> StrictYaml.bind("nodes: []\n---\nnodes: []\n", "f", Fleet.class))
        .isInstanceOf(YamlException.class)
        .hasMessageStartingWith("f line ");
  }

  @Test
  void theTreeKeepsLinesAndRefusesDuplicateKeysNamingThem() {
    YamlNode root = StrictYaml.tree("version: v1\nconfigs:\n  a: 1\n");
    assertThat(root).isInstanceOf(YamlNode.Mapping.class);
    YamlNode.Mapping mapping = (YamlNode.Mapping) root;
    assertThat(mapping.entry("configs").orElseThrow().line()).isEqualTo(2);

    assertThatThrownBy(() -> StrictYaml.tree("version: v1\nversion: v2\n"))
        .isInstanceOfSatisfying(
            YamlException.class,
            e -> {
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.key()).isEqualTo("version");
              assertThat(e.reason()).isEqualTo("duplicate key 'version'");
            });
    assertThatThrownBy(() -> StrictYaml.tree(""))
        .isInstanceOfSatisfying(
            YamlException.class, e -> assertThat(e.reason()).isEqualTo("the file is empty"));
    assertThatThrownBy(() -> StrictYaml.tree("a: 1\n---\nb: 2\n"))
        .isInstanceOfSatisfying(
            YamlException.class,
            e -> assertThat(e.reason()).isEqualTo("only one YAML document is allowed"));
  }

  /** An alias would reach the checks as a string holding the anchor's name, not its value. */
  @Test
  void theTreeRefusesAliasesNamingTheLine() {
    String[] aliased = {
      "base: &b 4\ncount: *b\n",
      "base: &b {a: 1}\nother:\n  - *b\n",
      "base: &b\n  a: 1\nother:\n  <<: *b\n"
    };
    for (String yaml : aliased) {
      assertThatThrownBy(() -> StrictYaml.tree(yaml))
          .as(yaml)
          .isInstanceOfSatisfying(
              YamlException.class,
              e -> {
                assertThat(e.reason()).startsWith("YAML aliases are not supported (*b)");
                assertThat(e.line()).isGreaterThan(1);
              });
    }
  }
}
