package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The Grafana provisioning files come out of Grafana's expansion as meant. */
class GrafanaProvisioningTest {
  private static final Path PROVISIONING = Kustomize.deployDir().resolve("grafana/provisioning");
  private static final Path DATASOURCE = PROVISIONING.resolve("datasources/fleetwave.yaml");

  @Test
  void everyProvisioningFileUsesOnlyTheFormsGrafanaExpands() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Path> files = files();
    for (Path file : files) {
      problems.addAll(
          GrafanaExpansion.problems(
              Kustomize.deployDir().relativize(file).toString(), Files.readString(file)));
    }
    assertThat(files).contains(DATASOURCE);
    assertThat(problems).isEmpty();
  }

  @Test
  void theDatasourceGetsItsHostAndPasswordFromGrafanasEnvironmentAndTheRestAsWritten()
      throws IOException {
    Map<String, String> environment =
        Map.of(
            "FLEETWAVE_REPORTS_HOST", "fleetwave-db-ro.elsewhere.svc:5432",
            "FLEETWAVE_REPORTS_PASSWORD", "s3cret");
    StringBuilder expanded = new StringBuilder();
    List<String> lines = Files.readAllLines(DATASOURCE);
    for (int i = 0; i < lines.size(); i++) {
      expanded
          .append(GrafanaExpansion.expand(DATASOURCE.toString(), i + 1, lines.get(i), environment))
          .append('\n');
    }
    Map<?, ?> datasource =
        (Map<?, ?>)
            ((List<?>)
                    new KubernetesSerialization()
                        .unmarshal(expanded.toString(), Map.class)
                        .get("datasources"))
                .getFirst();
    assertThat(datasource.get("url")).isEqualTo("fleetwave-db-ro.elsewhere.svc:5432");
    assertThat(datasource.get("user")).isEqualTo("grafana");
    assertThat(map(datasource.get("jsonData")))
        .containsEntry("database", "app")
        .containsEntry("sslmode", "require");
    assertThat(map(datasource.get("secureJsonData"))).containsEntry("password", "s3cret");
  }

  /** deploy/README.md tells the operator every variable Grafana's environment must set. */
  @Test
  void everyVariableTheProvisioningReadsIsDocumented() throws IOException {
    String readme = Files.readString(Kustomize.deployDir().resolve("README.md"));
    List<String> variables = new ArrayList<>();
    for (Path file : files()) {
      variables.addAll(GrafanaExpansion.variables(Files.readString(file)));
    }
    assertThat(variables).isNotEmpty().allMatch(v -> readme.contains("`" + v + "`"));
  }

  @Test
  void dollarNameAndDollarBracesExpandAndTwoDollarsAreOne() {
    assertThat(
            GrafanaExpansion.expand("f", 1, "url: $A:${B}/$$C $UNSET.", Map.of("A", "h", "B", "1")))
        .isEqualTo("url: h:1/$C .");
  }

  @Test
  void aShellDefaultIsRefusedWithTheFileLineAndText() {
    assertThat(GrafanaExpansion.problems("d.yaml", "a: 1\n  url: ${HOST:-db:5432}\n# ${X:-y}\n"))
        .singleElement()
        .asString()
        .startsWith("d.yaml:2: ${HOST:-db:5432} is not a form")
        .endsWith("url: ${HOST:-db:5432}");
    assertThatThrownBy(() -> GrafanaExpansion.expand("d.yaml", 7, "x: ${H", Map.of()))
        .hasMessageStartingWith("d.yaml:7: ${H");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  private static List<Path> files() throws IOException {
    try (Stream<Path> files = Files.walk(PROVISIONING)) {
      return files.filter(Files::isRegularFile).sorted().toList();
    }
  }
}
