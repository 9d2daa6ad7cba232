package io.fleetwave.agent;

import io.fleetwave.agent.kubernetes.NodeObject;
import io.fleetwave.agent.kubernetes.NodeReader;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The zone and labels a node registers with. --zone and --labels (or their variables) win; what
 * they leave open comes from the node's Node object when the agent runs in a pod and knows its node
 * name; else the zone is {@value AgentOptions#DEFAULT_ZONE} and there are no labels. A Node object
 * that cannot be read (forbidden, absent, no answer within the bound) costs one log line, never the
 * start.
 */
record Placement(String zone, Map<String, String> labels) {
  private static final System.Logger LOG = System.getLogger(Placement.class.getName());

  /**
   * Bound on reading the Node object, connection included. An agent starting on a busy node spends
   * seconds loading the Kubernetes client and in the TLS handshake before its one request; 5 s cut
   * such a read on a loaded 2-core machine, and the node registered in zone "default" instead of
   * its own, which a rollout's zone limit then counts wrong.
   */
  static final Duration NODE_OBJECT_BOUND = Duration.ofSeconds(15);

  Placement {
    labels = Map.copyOf(labels);
  }

  /**
   * @param reader the Node reader, created only when the Node object is to be read
   */
  static Placement of(
      AgentOptions options, Map<String, String> env, Supplier<NodeReader> reader, Duration bound) {
    if (options.zone().isPresent() && options.labels().isPresent()) {
      return new Placement(options.zone().get(), options.labels().get());
    }
    Optional<String> notReadable = NodeObject.notReadable(env, options.nodeName());
    if (notReadable.isPresent()) {
      Placement placement = fromOptions(options);
      if (NodeObject.inPod(env)) {
        LOG.log(
            Level.WARNING,
            "Node object not read ({0}); {1}",
            notReadable.get(),
            placement.described());
      }
      return placement;
    }
    String node = options.nodeName().orElseThrow();
    return switch (NodeObject.read(reader, node, options.nodeLabelPrefixes(), bound)) {
      case NodeObject.Lookup.Found found -> {
        Placement placement =
            new Placement(
                options.zone().or(found::zone).orElse(AgentOptions.DEFAULT_ZONE),
                options.labels().orElse(found.labels()));
        LOG.log(
            Level.INFO,
            "Node object of "
                + node
                + " read: zone="
                + placement.zone()
                + (options.zone().isPresent() ? " (--zone)" : "")
                + ", "
                + placement.labels().size()
                + (options.labels().isPresent() ? " labels (--labels)" : " labels from it"));
        yield placement;
      }
      case NodeObject.Lookup.Unavailable unavailable -> {
        Placement placement = fromOptions(options);
        LOG.log(
            Level.WARNING,
            "Node object of {0} not read ({1}); {2}",
            node,
            unavailable.reason(),
            placement.described());
        yield placement;
      }
    };
  }

  private static Placement fromOptions(AgentOptions options) {
    return new Placement(
        options.zone().orElse(AgentOptions.DEFAULT_ZONE), options.labels().orElse(Map.of()));
  }

  private String described() {
    return "zone and labels from --zone/--labels or their defaults: zone="
        + zone
        + ", labels="
        + labels;
  }
}
