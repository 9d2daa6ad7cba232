package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A node's pool, as reports.node_inventory reads it from its labels. */
class NodePoolTest {
  @Test
  void theFirstPoolLabelInTheViewsOrderNamesThePool() {
    assertThat(
            NodePool.of(
                Map.of(
                    "kubernetes.azure.com/agentpool", "aks",
                    "karpenter.sh/nodepool", "karpenter",
                    "eks.amazonaws.com/nodegroup", "eks")))
        .isEqualTo("eks");
    assertThat(NodePool.of(Map.of("cloud.google.com/gke-nodepool", "gke", "pool", "ours")))
        .isEqualTo("ours");
    assertThat(NodePool.of(Map.of("kubernetes.azure.com/agentpool", "aks"))).isEqualTo("aks");
    assertThat(NodePool.of(Map.of("pool", ""))).isEmpty();
    assertThat(NodePool.of(Map.of("node-pool", "not one of them"))).isEqualTo("(none)");
    assertThat(NodePool.of(Map.of())).isEqualTo("(none)");
  }
}
