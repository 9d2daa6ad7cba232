package io.fleetwave.core.rollout.plan;

import java.util.List;
import java.util.Map;

/**
 * What one wave takes offline at once and how long it is expected to take.
 *
 * @param wave the wave's number
 * @param peakGpusOffline most GPUs offline at once in any of its batches
 * @param peakGpusOfflineByZone per zone, the most of its GPUs offline at once in any batch
 * @param peakGpusOfflineByModel per GPU model, the same
 * @param peakGpusOfflineByLabel per label key shown (each key of maxGpusOfflinePer, and {@code
 *     team}), per value, the same; nodes without the label are left out
 * @param expectedSeconds its batches one after another, each as long as its slowest node's apply
 *     time, then its soak
 * @param unmeasuredKinds the kinds of its nodes no past rollout measured, counted at {@link
 *     ApplyTimes#DEFAULT}; empty when every node's time was measured
 * @param defaultApplySeconds what a node of an unmeasured kind counts for ({@link
 *     ApplyTimes#DEFAULT})
 */
public record WaveForecast(
    int wave,
    int peakGpusOffline,
    Map<String, Integer> peakGpusOfflineByZone,
    Map<String, Integer> peakGpusOfflineByModel,
    Map<String, Map<String, Integer>> peakGpusOfflineByLabel,
    long expectedSeconds,
    List<String> unmeasuredKinds,
    long defaultApplySeconds) {}
