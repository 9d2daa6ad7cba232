/**
 * Gauges computed from the projection for Prometheus: fleet convergence and silence, the
 * projection's staleness, and per-rollout progress, pauses and overdue nodes.
 */
package io.fleetwave.controlplane.metrics;
