package io.fleetwave.cli;

import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --as-of TIME}: the fleet as it was at an RFC 3339 time, rebuilt by the control plane from
 * its history (GET ...?asOf=). The control plane checks the time: a time it cannot read or in the
 * future is refused with its reason, one before the history it keeps with the oldest it answers.
 */
final class AsOfOption {
  @Option(
      names = "--as-of",
      paramLabel = "TIME",
      description =
          "the fleet as it was at this RFC 3339 time, e.g. 2026-12-05T03:12:00Z (from the node"
              + " history the control plane keeps)")
  String asOf;

  /** Adds the API's asOf parameter to {@code params} when the option is given. */
  void addTo(Map<String, Object> params) {
    params.put("asOf", asOf);
  }
}
