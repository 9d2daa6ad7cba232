package io.fleetwave.controlplane.rollout.driver;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fleetwave.core.driver.DriverArtifact;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The batch/v1 Job a {@code kubernetes-job} driver executor creates per node, read from {@code
 * fleetwave.rollout.driver-job.template}: YAML with {@code ${NAME}} placeholders (see {@link
 * #PLACEHOLDERS}), each replaced verbatim by the request's value. Values are restricted to
 * characters that need no YAML quoting ({@link #SAFE_VALUE}) and may not start with {@code -} (an
 * option to the command it is passed to); an empty value (e.g. {@code ${IMAGE}} for a host package)
 * reads as null unless the template quotes it.
 *
 * <p>Checked once at load: the file must be readable, use only known placeholders, and render to a
 * batch/v1 Job with at least one container; any fault names the file.
 */
public final class DriverJobTemplate {
  /** The placeholders a template may use. */
  public static final List<String> PLACEHOLDERS =
      List.of(
          "NODE",
          "DRIVER_VERSION",
          "ARTIFACT_KIND",
          "IMAGE",
          "PACKAGE_NAME",
          "PACKAGE_VERSION",
          "OS_ID",
          "OS_VERSION",
          "REQUEST_ID",
          "ROLLOUT_ID");

  static final Pattern SAFE_VALUE = Pattern.compile("[A-Za-z0-9._:/@+\\-]*");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private final Path file;
  private final String text;

  private DriverJobTemplate(Path file, String text) {
    this.file = file;
    this.text = text;
  }

  /**
   * Reads and checks a template.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static DriverJobTemplate load(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw invalid(file, "cannot be read (" + e + ")");
    }
    return parse(file, text);
  }

  static DriverJobTemplate parse(Path file, String text) {
    TreeSet<String> unknown = new TreeSet<>();
    Matcher matcher = PLACEHOLDER.matcher(text);
    while (matcher.find()) {
      if (!PLACEHOLDERS.contains(matcher.group(1))) {
        unknown.add("${" + matcher.group(1) + "} (line " + lineOf(text, matcher.start()) + ")");
      }
    }
    if (!unknown.isEmpty()) {
      throw invalid(
          file,
          "uses unknown placeholders "
              + String.join(", ", unknown)
              + "; known: "
              + PLACEHOLDERS.stream().map(p -> "${" + p + "}").toList());
    }
    DriverJobTemplate template = new DriverJobTemplate(file, text);
    // A sample rendering proves the template is a Job whatever the values.
    Map<String, String> sample = new LinkedHashMap<>();
    PLACEHOLDERS.forEach(p -> sample.put(p, "sample"));
    template.renderValues(sample);
    return template;
  }

  public Path file() {
    return file;
  }

  /** The Job for a request, without name or namespace (the executor sets those). */
  public Job render(DriverChangeRequest request) {
    return renderValues(values(request));
  }

  /** The placeholder values of a request. */
  static Map<String, String> values(DriverChangeRequest request) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("NODE", request.node());
    values.put("DRIVER_VERSION", request.toVersion());
    values.put("REQUEST_ID", request.id());
    values.put("ROLLOUT_ID", request.rolloutId().toString());
    values.put("IMAGE", "");
    values.put("PACKAGE_NAME", "");
    values.put("PACKAGE_VERSION", "");
    values.put("OS_ID", "");
    values.put("OS_VERSION", "");
    switch (request.artifact()) {
      case DriverArtifact.ContainerImage image -> {
        values.put("ARTIFACT_KIND", "container-image");
        values.put("IMAGE", image.image());
      }
      case DriverArtifact.HostPackage pkg -> {
        values.put("ARTIFACT_KIND", "host-package");
        values.put("PACKAGE_NAME", pkg.packageName());
        values.put("PACKAGE_VERSION", pkg.packageVersion());
      }
      case DriverArtifact.OsImage os -> {
        values.put("ARTIFACT_KIND", "os-image");
        values.put("OS_ID", os.osId());
        values.put("OS_VERSION", os.osVersion());
      }
    }
    values.forEach(
        (name, value) -> {
          if (value == null || !SAFE_VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException(
                "value of ${"
                    + name
                    + "} '"
                    + value
                    + "' has characters a Job template cannot take unquoted (allowed: "
                    + SAFE_VALUE.pattern()
                    + ")");
          }
          if (value.startsWith("-")) {
            // Templates pass values to commands (args, env read by scripts): a leading - would
            // make the value an option of the command it is given to.
            throw new IllegalArgumentException(
                "value of ${"
                    + name
                    + "} '"
                    + value
                    + "' must not start with '-' (a command would read it as an option)");
          }
        });
    return values;
  }

  private Job renderValues(Map<String, String> values) {
    String rendered =
        PLACEHOLDER.matcher(text).replaceAll(m -> Matcher.quoteReplacement(values.get(m.group(1))));
    Object parsed;
    try {
      parsed = SERIALIZATION.unmarshal(rendered);
    } catch (RuntimeException e) {
      throw invalid(file, "is not a Kubernetes object in YAML: " + e.getMessage());
    }
    if (!(parsed instanceof Job job) || !"batch/v1".equals(job.getApiVersion())) {
      String found =
          parsed instanceof HasMetadata object
              ? object.getApiVersion() + " " + object.getKind()
              : parsed == null ? "nothing" : parsed.getClass().getSimpleName();
      throw invalid(file, "must be a batch/v1 Job, found " + found);
    }
    if (job.getSpec() == null
        || job.getSpec().getTemplate() == null
        || job.getSpec().getTemplate().getSpec() == null
        || job.getSpec().getTemplate().getSpec().getContainers().isEmpty()) {
      throw invalid(file, "has no spec.template.spec.containers");
    }
    return job;
  }

  private static int lineOf(String text, int index) {
    return (int) text.substring(0, index).chars().filter(c -> c == '\n').count() + 1;
  }

  private static IllegalArgumentException invalid(Path file, String problem) {
    return new IllegalArgumentException(
        "driver job template " + file + " (fleetwave.rollout.driver-job.template) " + problem);
  }
}
