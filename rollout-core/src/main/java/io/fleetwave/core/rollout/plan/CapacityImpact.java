package io.fleetwave.core.rollout.plan;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the rollout does to the capacity of one GPU model across the fleet.
 *
 * @param gpuModel catalogue short name (or the PCI id of a model outside the catalogue)
 * @param gpus GPUs of this model in the fleet
 * @param peakGpusUnavailable most GPUs of this model out of service in any one batch
 * @param instancesBefore MIG instances by profile now
 * @param instancesAfter MIG instances by profile once the rollout is done
 * @param peakInstancesUnavailable most instances of each profile out of service in any one batch
 */
public record CapacityImpact(
    String gpuModel,
    int gpus,
    int peakGpusUnavailable,
    Map<String, Integer> instancesBefore,
    Map<String, Integer> instancesAfter,
    Map<String, Integer> peakInstancesUnavailable) {
  public CapacityImpact {
    instancesBefore = Collections.unmodifiableSortedMap(new TreeMap<>(instancesBefore));
    instancesAfter = Collections.unmodifiableSortedMap(new TreeMap<>(instancesAfter));
    peakInstancesUnavailable =
        Collections.unmodifiableSortedMap(new TreeMap<>(peakInstancesUnavailable));
  }
}
