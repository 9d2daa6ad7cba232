package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import io.fleetwave.controlplane.rollout.drain.DrainException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The pods' side of a drain: the node's pods (one list, field-selected by node), waiting for
 * selected pods to finish, evictions through the Eviction API with a PodDisruptionBudget's 429
 * tried again until a deadline, and waiting until evicted pods are gone (a watch per pod, fabric8's
 * waitUntilCondition). Blocking, bounded by the deadlines given and the client's request timeout.
 */
final class PodEvictions {
  private final KubernetesClient client;
  private final DrainSettings settings;

  PodEvictions(KubernetesClient client, DrainSettings settings) {
    this.client = client;
    this.settings = settings;
  }

  /** Waits (bounded) for the selected pods to finish; whether there were any. */
  boolean waitForSelected(String node, List<Pod> pods, List<String> notes) {
    List<Pod> selected =
        pods.stream()
            .filter(PodSelection::movable)
            .filter(p -> settings.waitFor().matches(PodSelection.labels(p)))
            .toList();
    Instant deadline = Instant.now().plus(settings.waitForTimeout());
    for (Pod pod : selected) {
      String uid = pod.getMetadata().getUid();
      boolean done =
          await(
              pod,
              p -> p == null || !uid.equals(p.getMetadata().getUid()) || PodSelection.finished(p),
              deadline);
      if (!done) {
        notes.add(
            "waited "
                + human(settings.waitForTimeout())
                + " for "
                + PodSelection.key(pod)
                + " to finish, evicted it");
      }
    }
    if (!selected.isEmpty() && notes.isEmpty()) {
      notes.add("waited for " + selected.size() + " selected pod(s) to finish on " + node);
    }
    return !selected.isEmpty();
  }

  /**
   * Evicts each pod; one a PodDisruptionBudget protects (429) is tried again every {@code
   * evictionRetry} until the deadline, then the node fails naming it.
   */
  List<Pod> evict(List<Pod> pods, Instant deadline) {
    Map<String, Pod> remaining = new LinkedHashMap<>();
    pods.forEach(p -> remaining.put(PodSelection.key(p), p));
    List<Pod> evicted = new ArrayList<>();
    while (true) {
      var it = remaining.entrySet().iterator();
      while (it.hasNext()) {
        var entry = it.next();
        Pod pod = entry.getValue();
        if (pod.getMetadata().getDeletionTimestamp() != null || evictOne(pod)) {
          evicted.add(pod);
          it.remove();
        }
      }
      if (remaining.isEmpty()) {
        return evicted;
      }
      Instant now = Instant.now();
      if (!now.isBefore(deadline)) {
        String first = remaining.keySet().iterator().next();
        // Every pod was first asked as the drain began, so it stayed blocked for the whole drain
        // timeout; the setting is what an operator raises, and a measured span would read 4m59s.
        throw new DrainException(
            "eviction of "
                + first
                + " blocked by a PodDisruptionBudget for "
                + human(settings.timeout())
                + (remaining.size() > 1
                    ? " (and " + (remaining.size() - 1) + " more pod(s) of the node)"
                    : ""));
      }
      sleep(min(settings.evictionRetry(), Duration.between(now, deadline)));
    }
  }

  /** Whether the pod was evicted (or is gone); false when a PodDisruptionBudget refused (429). */
  private boolean evictOne(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    // policy/v1 (the no-argument evict() posts policy/v1beta1, gone since Kubernetes 1.25).
    Eviction eviction =
        new EvictionBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .endMetadata()
            .build();
    try {
      return client.pods().inNamespace(namespace).withName(name).evict(eviction);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return true;
      }
      throw new DrainException(
          "eviction of " + namespace + "/" + name + " refused: " + apiError(e), e);
    }
  }

  /** Waits until every evicted pod is gone from the node (deleted, or another pod by that name). */
  void awaitGone(String node, List<Pod> pods, Instant deadline) {
    for (Pod pod : pods) {
      String uid = pod.getMetadata().getUid();
      boolean gone =
          await(
              pod,
              p ->
                  p == null
                      || !uid.equals(p.getMetadata().getUid())
                      || p.getSpec() == null
                      || !node.equals(p.getSpec().getNodeName()),
              deadline);
      if (!gone) {
        throw new DrainException(
            "evicted pod "
                + PodSelection.key(pod)
                + " still ran on node "
                + node
                + " "
                + human(settings.timeout())
                + " after the drain began");
      }
    }
  }

  /** Watches one pod until the condition holds (true) or the deadline passes (false). */
  private boolean await(Pod pod, Predicate<Pod> condition, Instant deadline) {
    long left = Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .waitUntilCondition(condition, left, TimeUnit.MILLISECONDS);
      return true;
    } catch (KubernetesClientTimeoutException e) {
      return false;
    }
  }

  /** The node's pods: one list, field-selected by node (checked here as well). */
  List<Pod> podsOn(String node) {
    return client
        .pods()
        .inAnyNamespace()
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()))
        .toList();
  }

  static String apiError(Throwable e) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      String message =
          k.getStatus() != null && k.getStatus().getMessage() != null
              ? k.getStatus().getMessage()
              : k.getMessage();
      return "HTTP " + k.getCode() + ": " + message;
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(Math.max(1, duration.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DrainException("interrupted while draining", e);
    }
  }

  /** A duration as people write it: 5m, 1m30s, 2s, 500ms. */
  static String human(Duration duration) {
    if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
      return duration.toMillis() + "ms";
    }
    long seconds = Math.round(duration.toMillis() / 1000.0);
    StringBuilder out = new StringBuilder();
    if (seconds >= 3600) {
      out.append(seconds / 3600).append('h');
    }
    if (seconds % 3600 >= 60) {
      out.append(seconds % 3600 / 60).append('m');
    }
    if (seconds % 60 > 0 || out.isEmpty()) {
      out.append(seconds % 60).append('s');
    }
    return out.toString();
  }
}
