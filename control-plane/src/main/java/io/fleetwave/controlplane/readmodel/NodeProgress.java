package io.fleetwave.controlplane.readmodel;

import io.fleetwave.core.projection.NodePosition;

/**
 * Where a node's spec stands in the projection, as the rollout engine polls it: the node's position
 * (the newest event the projection applied, so that the engine can tell which of its own reads of
 * the log are newer), the generations applied, failed and refused (0 for none), the cause of the
 * newest failure and refusal, the driver version and the unhealthy GPUs ("GPU 1 unhealthy, ...";
 * null when all are healthy).
 */
public record NodeProgress(
    String node,
    NodePosition position,
    long appliedGeneration,
    long failureGeneration,
    String failureStep,
    String failureReason,
    String failureHolder,
    long rejectionGeneration,
    String rejectionCode,
    String rejectionReason,
    String driverVersion,
    String unhealthy) {}
