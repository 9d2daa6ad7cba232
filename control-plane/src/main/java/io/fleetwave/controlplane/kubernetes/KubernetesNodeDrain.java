package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fleetwave.controlplane.rollout.drain.DrainException;
import io.fleetwave.controlplane.rollout.drain.NodeDrain;
import io.fleetwave.core.rollout.disruption.Disruption;
import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Cordon and drain around a node's change on Kubernetes, next to NVIDIA's GPU Operator ({@code
 * fleetwave.kubernetes.drain.enabled=true}).
 *
 * <p>Out of service, in this order: cordon (unless someone else did: then the node stays cordoned
 * after) with {@code nvidia.com/gpu-driver-upgrade.skip=true}; wait (bounded) for the pods of
 * {@code wait-for-selector} to finish; evict the pods that must leave ({@link PodSelection})
 * through the Eviction API, so PodDisruptionBudgets hold: a 429 is retried until {@code timeout},
 * then the node fails naming the pod; wait (bounded by the same timeout) until the evicted pods are
 * gone; for a MIG change, the GPU Operator's MIG labels ({@link NodeMarks}). A failure on the way
 * undoes the upgrade hold and leaves the node cordoned. Back in service: the labels set back, MIG
 * state success, then uncordon if Fleetwave holds the cordon. Kept out after a failure: the labels
 * set back, MIG state failed, cordon kept.
 *
 * <p>A node the API server does not know is not a Kubernetes node (a host outside the cluster):
 * nothing is done to it, and the event says so.
 *
 * <p>Every call is bounded: each API call by the client's request timeout, the waits by their
 * settings; fabric8 blocks, so everything runs on virtual threads, never on an event loop. The
 * Kubernetes API calls made, which the control plane's RBAC must allow:
 *
 * <ul>
 *   <li>{@code nodes}: get, patch (cordon, uncordon, labels, annotations; fabric8's edit is a get
 *       and a JSON patch);
 *   <li>{@code pods}, all namespaces: list with field selector {@code spec.nodeName=<node>} (once
 *       per drain, again after waiting for selected pods; never a cluster-wide list);
 *   <li>{@code pods}, in the pod's namespace: list and watch with field selector {@code
 *       metadata.name=<pod>} (fabric8's waitUntilCondition: waiting for a pod to finish or go);
 *   <li>{@code pods/eviction}: create (policy/v1).
 * </ul>
 */
public final class KubernetesNodeDrain implements NodeDrain, AutoCloseable {
  public static final String NAME = "kubernetes";
  private static final Logger LOG = Logger.getLogger(KubernetesNodeDrain.class);

  private final KubernetesClient client;
  private final DrainSettings settings;
  private final PodEvictions pods;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  KubernetesNodeDrain(KubernetesClient client, DrainSettings settings) {
    this.client = client;
    this.settings = settings;
    this.pods = new PodEvictions(client, settings);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean active() {
    return true;
  }

  @Override
  public Duration bound() {
    return settings.bound();
  }

  @Override
  public Uni<NodeTakenOutOfService> takeOutOfService(NodeOutage outage) {
    return blocking(() -> takeOut(outage));
  }

  @Override
  public Uni<Void> rebooting(NodeOutage outage) {
    return blocking(
        () -> {
          if (outage.migChange()) {
            edit(outage.node(), marks -> marks.migState("rebooting"));
          }
          return null;
        });
  }

  @Override
  public Uni<NodeReturnedToService> returnToService(NodeOutage outage) {
    return blocking(() -> giveBack(outage));
  }

  @Override
  public Uni<NodeKeptOutOfService> keepOutOfService(NodeOutage outage, String reason) {
    return blocking(() -> keepOut(outage, reason));
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }

  private <T> Uni<T> blocking(Supplier<T> work) {
    return Uni.createFrom().item(work).runSubscriptionOn(threads);
  }

  // --- out of service ---

  private NodeTakenOutOfService takeOut(NodeOutage outage) {
    long started = System.nanoTime();
    String node = outage.node();
    if (outage.disruption() == Disruption.NONE) {
      return taken(outage, false, false, List.of(), List.of(), null, "nothing to drain", started);
    }
    boolean[] cordonedBefore = new boolean[1];
    Node found;
    try {
      found =
          edit(
              node,
              marks -> {
                cordonedBefore[0] = marks.cordon(outage.owner());
                marks.holdUpgrades();
              });
    } catch (KubernetesClientException e) {
      throw new DrainException(
          "node " + node + " could not be cordoned: " + PodEvictions.apiError(e), e);
    }
    if (found == null) {
      return taken(
          outage,
          false,
          false,
          List.of(),
          List.of(),
          null,
          "not a Kubernetes node: nothing cordoned or evicted",
          started);
    }
    try {
      List<String> notes = new ArrayList<>();
      List<Pod> onNode = pods.podsOn(node);
      if (settings.waits() && pods.waitForSelected(node, onNode, notes)) {
        onNode = pods.podsOn(node);
      }
      List<Pod> leaving =
          onNode.stream().filter(p -> settings.pods().evicts(p, outage.disruption())).toList();
      Instant deadline = Instant.now().plus(settings.timeout());
      List<Pod> evicted = pods.evict(leaving, deadline);
      pods.awaitGone(node, evicted, deadline);
      List<String> paused = new ArrayList<>();
      String[] migBefore = new String[1];
      if (outage.migChange()) {
        edit(
            node,
            marks -> {
              paused.addAll(marks.pauseForMigChange(outage.migConfig(), settings.pausedOperands()));
              migBefore[0] = marks.migConfigBefore();
            });
      }
      return taken(
          outage,
          true,
          cordonedBefore[0],
          evicted.stream().map(PodSelection::key).toList(),
          paused,
          migBefore[0],
          notes.isEmpty() ? null : String.join("; ", notes),
          started);
    } catch (DrainException | KubernetesClientException e) {
      throw failedDrain(outage, cordonedBefore[0], e);
    }
  }

  /** The drain failed: the upgrade hold (and any label) is undone; the cordon stays. */
  private DrainException failedDrain(
      NodeOutage outage, boolean cordonedBefore, RuntimeException e) {
    String reason =
        e instanceof DrainException
            ? e.getMessage()
            : "node " + outage.node() + ": the Kubernetes API failed: " + PodEvictions.apiError(e);
    try {
      edit(outage.node(), marks -> marks.restore("failed"));
    } catch (RuntimeException undo) {
      reason += "; undoing its GPU Operator labels failed too: " + PodEvictions.apiError(undo);
    }
    reason +=
        cordonedBefore
            ? "; the node stays cordoned, as it was before"
            : "; the node stays cordoned (" + NodeMarks.CORDONED_BY + "=" + outage.owner() + ")";
    return new DrainException(reason, e);
  }

  private static NodeTakenOutOfService taken(
      NodeOutage outage,
      boolean cordoned,
      boolean cordonedBefore,
      List<String> evicted,
      List<String> paused,
      String migConfigBefore,
      String note,
      long startedNanos) {
    return new NodeTakenOutOfService(
        outage.node(),
        outage.phase(),
        cordoned,
        cordonedBefore,
        evicted,
        paused,
        migConfigBefore,
        note,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
  }

  // --- back in service, or kept out ---

  private NodeReturnedToService giveBack(NodeOutage outage) {
    List<String> restored = new ArrayList<>();
    Node found = edit(outage.node(), marks -> restored.addAll(marks.restore("success")));
    if (found == null) {
      return new NodeReturnedToService(
          outage.node(), outage.phase(), false, List.of(), "not a Kubernetes node");
    }
    boolean[] uncordoned = new boolean[1];
    String[] holder = new String[1];
    boolean[] cordoned = new boolean[1];
    edit(
        outage.node(),
        marks -> {
          uncordoned[0] = marks.uncordon(outage.owner());
          holder[0] = marks.cordonedBy();
          cordoned[0] = marks.unschedulable();
        });
    String note =
        uncordoned[0] || !cordoned[0]
            ? null
            : "cordoned by "
                + (holder[0] == null ? "someone else" : holder[0])
                + " before this rollout: it stays cordoned";
    return new NodeReturnedToService(outage.node(), outage.phase(), uncordoned[0], restored, note);
  }

  private NodeKeptOutOfService keepOut(NodeOutage outage, String reason) {
    List<String> restored = new ArrayList<>();
    boolean[] cordoned = new boolean[1];
    String[] holder = new String[1];
    Node found =
        edit(
            outage.node(),
            marks -> {
              restored.addAll(marks.restore("failed"));
              cordoned[0] = marks.unschedulable();
              holder[0] = marks.cordonedBy();
            });
    String why = reason == null || reason.isBlank() ? "the node failed" : reason;
    if (found == null) {
      return new NodeKeptOutOfService(
          outage.node(), outage.phase(), List.of(), why + "; not a Kubernetes node");
    }
    String cordon =
        !cordoned[0]
            ? "it is not cordoned"
            : outage.owner().equals(holder[0])
                ? "it stays cordoned (" + NodeMarks.CORDONED_BY + "=" + outage.owner() + ")"
                : "it stays cordoned, as it was before";
    String labels = restored.isEmpty() ? "" : "GPU Operator operands " + restored + " set back; ";
    return new NodeKeptOutOfService(
        outage.node(),
        outage.phase(),
        restored,
        why
            + "; "
            + labels
            + (outage.migChange() ? NodeMarks.MIG_CONFIG_STATE + "=failed; " : "")
            + cordon);
  }

  // --- the node object ---

  /**
   * Reads the node, changes its marks and patches what changed (fabric8's edit: a get and a JSON
   * patch). Null when the node does not exist.
   */
  private Node edit(String node, Consumer<NodeMarks> change) {
    try {
      return client
          .nodes()
          .withName(node)
          .edit(
              current -> {
                NodeMarks marks =
                    new NodeMarks(
                        current.getMetadata().getLabels(),
                        current.getMetadata().getAnnotations(),
                        current.getSpec() != null
                            && Boolean.TRUE.equals(current.getSpec().getUnschedulable()));
                change.accept(marks);
                NodeBuilder edited =
                    new NodeBuilder(current)
                        .editMetadata()
                        .withLabels(marks.labels())
                        .withAnnotations(marks.annotations())
                        .endMetadata();
                if (marks.cordonChanged()) {
                  edited =
                      edited.editOrNewSpec().withUnschedulable(marks.unschedulable()).endSpec();
                }
                return edited.build();
              });
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        LOG.debugf("node %s is not a Kubernetes node: no drain", node);
        return null;
      }
      throw e;
    }
  }
}
