package io.fleetwave.core.rollout.plan;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a rollout proceeds.
 *
 * @param waves cumulative wave sizes as counts or shares, canary first, ending with {@code "100%"}
 *     (e.g. {@code ["1", "10%", "50%", "100%"]})
 * @param maxUnavailable nodes out of service at once, as a count or a share of the planned nodes
 * @param maxZonesInFlight at most this many failure domains in flight at once; null: no limit
 * @param zoneLabel the node label naming a node's failure domain; a node without it falls back to
 *     its reported zone
 * @param soakSeconds how long a wave must stay healthy before the next starts
 * @param failureThreshold when failures stop the rollout
 * @param manualPromotion whether each wave waits for an explicit promote
 * @param nodeTimeoutSeconds how long one node may take before it counts as failed
 * @param maintenanceWindow when nodes may be taken out of service; null: any time
 * @param maxGpusOffline GPUs out of service at once across the rollout (a node counts all its
 *     GPUs); null: no bound beyond maxUnavailable
 * @param maxGpusOfflinePer per label key, GPUs out of service at once among the nodes of any one
 *     value of that label ({@code {"team": 16}}: at most 16 GPUs of any one team); nodes without
 *     the label count only against maxGpusOffline
 */
public record RolloutStrategy(
    List<String> waves,
    String maxUnavailable,
    Integer maxZonesInFlight,
    String zoneLabel,
    Integer soakSeconds,
    FailureThreshold failureThreshold,
    Boolean manualPromotion,
    Integer nodeTimeoutSeconds,
    MaintenanceWindow maintenanceWindow,
    Integer maxGpusOffline,
    Map<String, Integer> maxGpusOfflinePer) {

  public static final String DEFAULT_ZONE_LABEL = "topology.kubernetes.io/zone";

  public RolloutStrategy {
    waves = waves == null ? List.of() : List.copyOf(waves);
    maxUnavailable = maxUnavailable == null ? "1" : maxUnavailable;
    zoneLabel = zoneLabel == null ? DEFAULT_ZONE_LABEL : zoneLabel;
    soakSeconds = soakSeconds == null ? 0 : soakSeconds;
    failureThreshold = failureThreshold == null ? FailureThreshold.defaults() : failureThreshold;
    manualPromotion = manualPromotion != null && manualPromotion;
    nodeTimeoutSeconds = nodeTimeoutSeconds == null ? 600 : nodeTimeoutSeconds;
    // Kept in the order given (a null value stays, for the validator to name).
    maxGpusOfflinePer =
        maxGpusOfflinePer == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(maxGpusOfflinePer));
  }
}
