package io.fleetwave.controlplane.readmodel;

import java.util.List;
import java.util.Map;

/**
 * The pool a node belongs to: the first of the usual node-pool labels it carries, "(none)" without
 * one. Java's form of {@code reports.node_inventory.pool} (migration V17), which stays in SQL for
 * Grafana; FleetViewIT keeps the two equal.
 */
public final class NodePool {
  /** The pool of a node without a pool label, and the zone of a node without a zone. */
  public static final String NONE = "(none)";

  /** The labels that name a node's pool, first first: ours, GKE, EKS, Karpenter, AKS. */
  static final List<String> LABELS =
      List.of(
          "pool",
          "cloud.google.com/gke-nodepool",
          "eks.amazonaws.com/nodegroup",
          "karpenter.sh/nodepool",
          "kubernetes.azure.com/agentpool");

  private NodePool() {}

  /** The pool of a node with {@code labels}. */
  public static String of(Map<String, String> labels) {
    for (String label : LABELS) {
      String pool = labels.get(label);
      if (pool != null) {
        return pool;
      }
    }
    return NONE;
  }
}
