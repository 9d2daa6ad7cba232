package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;

import java.util.List;

/**
 * The node is out of service for its change (on Kubernetes: cordoned, its GPU pods evicted and
 * gone, the GPU Operator's operands paused). The engine sends the node its spec only once this is
 * in the log; until then the node counts as draining.
 *
 * @param cordoned whether the node is cordoned now
 * @param cordonedBefore whether someone else had cordoned it before: it then stays cordoned after
 *     the change
 * @param evicted the pods evicted, as {@code namespace/name}
 * @param pausedOperands the GPU Operator operands paused for a MIG change (e.g. {@code
 *     device-plugin})
 * @param migConfigBefore the node's {@code nvidia.com/mig.config} before this change, or null (no
 *     label, or no MIG change); a rollback writes it back
 * @param note what else there is to know (a node outside the cluster, pods waited for), or null
 */
public record NodeTakenOutOfService(
    String node,
    Phase phase,
    boolean cordoned,
    boolean cordonedBefore,
    List<String> evicted,
    List<String> pausedOperands,
    String migConfigBefore,
    String note,
    long elapsedMillis)
    implements RolloutEvent {
  public NodeTakenOutOfService {
    notBlank(node, "node");
    notNull(phase, "phase");
    evicted = List.copyOf(notNull(evicted, "evicted"));
    pausedOperands = List.copyOf(notNull(pausedOperands, "pausedOperands"));
    notNegative(elapsedMillis, "elapsedMillis");
  }
}
