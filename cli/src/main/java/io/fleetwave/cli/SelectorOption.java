package io.fleetwave.cli;

import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code -l/--selector SELECTOR}: the nodes a Kubernetes label selector picks (GET ...?selector=),
 * written as for {@code kubectl get nodes -l}. The control plane reads the selector and refuses one
 * it cannot read with its reason.
 */
final class SelectorOption {
  @Option(
      names = {"-l", "--selector"},
      paramLabel = "SELECTOR",
      description = "Kubernetes label selector of the nodes, e.g. pool=training,zone notin (b)")
  String selector;

  /** Adds the API's selector parameter to {@code params} when the option is given. */
  void addTo(Map<String, Object> params) {
    params.put("selector", selector);
  }
}
