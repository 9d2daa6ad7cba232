package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fleetwave.controlplane.config.KubernetesConfig;
import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.core.projection.NodeChange;
import io.fleetwave.core.projection.ReconcileState;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The device-plugin gate as a Kubernetes node label ({@value #LABEL} = held | released), for
 * clusters whose device plugin is scheduled by node affinity on it. The agent cannot write labels
 * (it is plain Java with no API credentials, and Talos nodes get none), so the control plane
 * mirrors the gate events it projects. Off unless {@code
 * fleetwave.kubernetes.gate-labels.enabled=true}; then every call is bounded by the client's
 * request timeout and a failure is logged, never fatal.
 */
@ApplicationScoped
public class GateLabels {
  public static final String LABEL = "fleetwave.io/device-plugin-gate";
  private static final Logger LOG = Logger.getLogger(GateLabels.class);

  private final boolean enabled;
  private final Instance<KubernetesClient> client;
  private final Map<String, String> labelled = new ConcurrentHashMap<>();

  public GateLabels(KubernetesConfig config, Instance<KubernetesClient> client) {
    this.enabled = config.gateLabels().enabled();
    this.client = client;
  }

  /** Mirrors the gate of every node of a committed batch whose gate differs from its label. */
  public Uni<Void> mirror(List<NodeChange> changes) {
    if (!enabled) {
      return Uni.createFrom().voidItem();
    }
    Map<String, String> wanted = new HashMap<>();
    for (NodeChange change : changes) {
      change
          .reconcile()
          .map(ReconcileState::gate)
          .filter(gate -> !gate.equals(labelled.get(change.node())))
          .ifPresent(gate -> wanted.put(change.node(), gate));
    }
    if (wanted.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    // fabric8 calls block: run them off the event loop.
    return Uni.createFrom()
        .item(
            () -> {
              wanted.forEach(this::label);
              return (Void) null;
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
  }

  private void label(String node, String gate) {
    try {
      Node labelledNode =
          client
              .get()
              .nodes()
              .withName(node)
              .edit(
                  n ->
                      new NodeBuilder(n)
                          .editMetadata()
                          .addToLabels(LABEL, gate)
                          .endMetadata()
                          .build());
      if (labelledNode != null) {
        labelled.put(node, gate);
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        LOG.debugf("node %s is not a Kubernetes node: no gate label", node);
        labelled.put(node, gate);
      } else {
        LogContext.aboutNode(
            node,
            () -> LOG.warnf("cannot label node %s %s=%s: %s", node, LABEL, gate, e.getMessage()));
      }
    }
  }
}
