package io.fleetwave.agent;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's own option parser for other modules' tests: deploy/ checks that what its DaemonSets
 * pass (arguments and environment) is what the agent understands, and means what the host kind
 * needs.
 */
public final class AgentOptionsReader {
  private AgentOptionsReader() {}

  /**
   * The options as the agent reads them, by option name without dashes; absent options are left
   * out.
   *
   * @throws IllegalArgumentException with the agent's own message, as it would exit with code 2
   */
  public static Map<String, String> read(List<String> args, Map<String, String> env) {
    AgentOptions options = AgentOptions.parse(args.toArray(String[]::new), env);
    Map<String, String> read = new LinkedHashMap<>();
    options.bootstrapServers().ifPresent(v -> read.put("bootstrap", v));
    options.kafkaConfig().ifPresent(v -> read.put("kafka-config", v.toString()));
    options.nodeName().ifPresent(v -> read.put("node-name", v));
    read.put("host-root", options.hostRoot().toString());
    options.driverRoot().ifPresent(v -> read.put("driver-root", v));
    options.deviceRoot().ifPresent(v -> read.put("device-root", v));
    options.zone().ifPresent(v -> read.put("zone", v));
    options.publicKey().ifPresent(v -> read.put("public-key", v));
    options.controlPlane().ifPresent(v -> read.put("control-plane", v));
    return read;
  }
}
