package io.fleetwave.controlplane.kubernetes;

import io.fleetwave.core.selector.LabelSelector;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How nodes are drained ({@code fleetwave.kubernetes.drain.*}, see application.properties).
 *
 * @param timeout bound on evicting a node's pods (a PodDisruptionBudget's 429 retried within it)
 *     and on their termination
 * @param evictionRetry pause between two tries of an eviction a PodDisruptionBudget refused
 * @param pods which pods leave
 * @param waitFor pods matching it are waited for (finished or gone) before evictions start; empty
 *     selector: none
 * @param waitForTimeout bound on that wait; those still running then are evicted like the rest
 * @param pausedOperands GPU Operator operands paused for a MIG change where deployed
 * @param requestTimeout the Kubernetes client's bound on one API call
 */
record DrainSettings(
    Duration timeout,
    Duration evictionRetry,
    PodSelection pods,
    LabelSelector waitFor,
    Duration waitForTimeout,
    List<String> pausedOperands,
    Duration requestTimeout) {
  DrainSettings {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(evictionRetry, "evictionRetry");
    Objects.requireNonNull(pods, "pods");
    Objects.requireNonNull(waitFor, "waitFor");
    Objects.requireNonNull(waitForTimeout, "waitForTimeout");
    pausedOperands = List.copyOf(pausedOperands);
    Objects.requireNonNull(requestTimeout, "requestTimeout");
  }

  boolean waits() {
    return !waitFor.requirements().isEmpty();
  }

  /**
   * The most taking one node out of service may take: the waits, plus the API calls around them
   * (cordon, listing, labels, undoing on failure), each bounded by the request timeout.
   */
  Duration bound() {
    return timeout
        .plus(waits() ? waitForTimeout : Duration.ZERO)
        .plus(requestTimeout.multipliedBy(10));
  }
}
